/**
 * `npm run bench`: every benchmark in turn (or those named: `npm run bench -- x12 submit-status`).
 * Each prints its numbers next to a baseline measured in the same run. Arguments from the first `--option`
 * on go to the named benchmarks' `run` (`npm run bench -- e2e --runs 3 --checks 1000`).
 */
import { existsSync } from 'node:fs';

const ALL = [
  'x12',
  'submit-status',
  'webhooks',
  'scale',
  'status-at-scale',
  'memory',
  'connectors',
  'batch',
  'payer-import',
  'clearinghouse',
  'payer-directory',
  'payer-search',
  'scorecard',
  'fairness',
  'batch-upload',
  'e2e',
];
const args = process.argv.slice(2);
const firstOption = args.findIndex((a) => a.startsWith('--'));
const names = firstOption === -1 ? args : args.slice(0, firstOption);
const options = firstOption === -1 ? [] : args.slice(firstOption);
const wanted = names.length ? names : ALL;
for (const name of wanted) {
  const file = new URL(`./${name}.ts`, import.meta.url);
  if (!existsSync(file)) {
    console.log(`bench/${name}: not present`);
    continue;
  }
  const mod = (await import(file.href)) as { run(options?: string[]): Promise<void> };
  await mod.run(options);
}
