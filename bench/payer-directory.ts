/**
 * bench/payer-directory: loading a clearinghouse-sized directory. For 5,000 and 10,000 payers behind one
 * connection: checking the whole document (schema, ids and aliases, connections, secret references) and
 * building the entries (one connector for the connection), next to `JSON.parse` of the same text measured
 * in the same run. Target: under a second for 5,000 (issue 25). Submits never wait on it: a rebuild makes a
 * new directory and swaps it in whole (src/directory/service.ts).
 *
 *   npm run bench -- payer-directory
 */
import { loadConfig } from '../src/config.ts';
import { createPayerDirectory } from '../src/payers/directory.ts';
import { buildPayerEntries, checkDirectoryDocument } from '../src/payers/directory-file.ts';
import type { PayerDirectoryFile } from '../src/payers/directory-schema.ts';
import { createSandboxConnector } from '../src/payers/sandbox/index.ts';
import { payerList } from '../test/helpers/payer-list.ts';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function documentOf(count: number): PayerDirectoryFile {
  return {
    connections: {
      clearinghouse: {
        type: 'x12-json',
        url: 'https://clearinghouse.example/raw-x12',
        auth: { type: 'api-key', key: { env: 'BENCH_KEY' } },
        limits: { concurrency: 5 },
      },
    },
    payers: payerList(count).map((p) => ({
      id: p.id,
      name: p.name.slice(0, 60),
      payerId: p.id,
      // Directory aliases are ids (the generator's aliases are also other names, kept where id-shaped).
      aliases: p.aliases.filter((a) => /^[A-Za-z0-9][A-Za-z0-9._-]{0,49}$/.test(a)),
      ...(p.states?.length ? { states: [...p.states] } : {}),
      connection: 'clearinghouse',
    })),
  };
}

export async function run(): Promise<void> {
  const settings = { ...loadConfig({ ELIG_ENV: 'test' }), payersFile: 'bench.json' };
  const options = { sandbox: createSandboxConnector({ latencyMs: 0 }), secrets: { env: { BENCH_KEY: 'k' } } };
  for (const count of [5_000, 10_000]) {
    const text = JSON.stringify(documentOf(count));
    const parse: number[] = [];
    const load: number[] = [];
    for (let i = 0; i < 5; i++) {
      let t = performance.now();
      const json = JSON.parse(text);
      parse.push(performance.now() - t);
      t = performance.now();
      const problems = checkDirectoryDocument(json, settings, options.secrets);
      if (problems.length) throw new Error(problems.slice(0, 3).join('; '));
      const { entries } = buildPayerEntries(json, settings, options);
      createPayerDirectory(entries);
      load.push(performance.now() - t);
    }
    console.log(
      `bench/payer-directory ${count} payers: check + build ${median(load).toFixed(0)} ms (median of 5, first ${load[0]!.toFixed(0)} ms); ` +
        `JSON.parse ${median(parse).toFixed(0)} ms -> ratio ${(median(load) / median(parse)).toFixed(1)}; ` +
        `target < 1000 ms: ${(median(load) / 1000).toFixed(2)} of it`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
