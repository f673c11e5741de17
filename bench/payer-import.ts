/**
 * bench/payer-import: a 10 000-payer list through importPayerList, as CSV and as Stedi's List Payers JSON,
 * next to the bare read of the same text measured in the same run (the CSV tokenizer alone; JSON.parse
 * alone). ratio = import / bare: what validating, mapping and the uniqueness checks add to reading the
 * file. Medians of several rounds, because the machine is shared. Target: each import well under 1 s.
 */

import { importPayerList } from '../src/payers/import.ts';
import { readCsv } from '../src/payers/import-csv.ts';

const PAYERS = Number(process.env.BENCH_PAYER_IMPORT_ROWS ?? 10_000);
const ROUNDS = 7;

function lists(): { csv: string; stedi: string } {
  const ids = Array.from({ length: PAYERS }, (_, i) => `P${String(i).padStart(5, '0')}`);
  const csv = [
    'Payer ID,Payer Name,Aliases,270 Supported,Enrollment Required,States',
    ...ids.map((id, i) => `${id},"Payer ${id}, Inc.",X${id};Y${id},${i % 7 ? 'Y' : 'N'},N,CA;NY;TX`),
  ].join('\r\n');
  const stedi = JSON.stringify({
    items: ids.map((id, i) => ({
      stediId: `S${id}`,
      displayName: `Payer ${id}`,
      primaryPayerId: id,
      aliases: [id, `X${id}`, `Y${id}`],
      operatingStates: ['CA', 'NY'],
      coverageTypes: ['medical'],
      transactionSupport: {
        eligibilityCheck: i % 7 ? 'SUPPORTED' : 'NOT_SUPPORTED',
        claimStatus: 'SUPPORTED',
      },
    })),
  });
  return { csv, stedi };
}

function median(op: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    op();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
}

export async function run(): Promise<void> {
  const { csv, stedi } = lists();
  for (const [name, text, bare] of [
    ['csv', csv, () => readCsv(csv)],
    ['stedi', stedi, () => JSON.parse(stedi)],
  ] as const) {
    let entries = 0;
    const bareMs = median(bare);
    const importMs = median(() => {
      entries = importPayerList(text, { connection: 'bench' }).entries.length;
    });
    console.log(
      `bench/payer-import ${name}: ${PAYERS} rows → ${entries} entries, import ${importMs.toFixed(1)} ms, ` +
        `bare read ${bareMs.toFixed(1)} ms, ratio import/bare ${(importMs / bareMs).toFixed(2)}`,
    );
  }
}
