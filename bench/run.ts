/**
 * `npm run bench`: every benchmark in turn (or those named: `npm run bench -- x12 submit-status`).
 * Each prints its numbers next to a baseline measured in the same run.
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
];
const wanted = process.argv.slice(2).length ? process.argv.slice(2) : ALL;
for (const name of wanted) {
  const file = new URL(`./${name}.ts`, import.meta.url);
  if (!existsSync(file)) {
    console.log(`bench/${name}: not present`);
    continue;
  }
  const mod = (await import(file.href)) as { run(): Promise<void> };
  await mod.run();
}
