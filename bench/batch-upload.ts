/**
 * bench/batch-upload (issue 26 item 1): adversarial schedule CSVs near the portal's 8 MB upload limit,
 * uploaded by one signed-in member through POST /portal/batches (the portal on PGlite, in this process),
 * then read by the parser alone. For each file: the longest stall of the event loop (monitorEventLoopDelay,
 * 10 ms resolution) against the 100 ms target (ratio, lower is better: at most 1 passes), the peak RSS
 * growth (sampled every 10 ms), the answer's status and size, and the time taken.
 *
 * Baselines, in the same run: the loop idle for a second (what the machine's load alone stalls it: on a
 * shared, loaded machine this is not zero) and the template (three rows) uploaded the same way, after one
 * unmeasured upload to warm the code up.
 * Before issue 26 the file of empty rows stalled the loop for 17 s and took RSS from 665 MB to 2.2 GB, and
 * the single row of commas came back as a 16.7 MB page.
 *
 *   npm run bench -- batch-upload
 */
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { readScheduleCsv } from '../src/batches/csv.ts';
import { BATCH_UPLOAD_LIMIT_BYTES } from '../src/portal/routes/batches.ts';
import {
  csrfToken,
  type PortalClient,
  type PortalHarness,
  signInWithLink,
  startPortal,
} from '../test/portal/helpers.ts';

const TARGET_MS = 100;
const TEMPLATE = readFileSync(new URL('../examples/batch.example.csv', import.meta.url), 'utf8');
const [HEADER, ...ROWS] = TEMPLATE.trimEnd().split('\n') as [string, ...string[]];
/** Under the body limit with room for the multipart envelope and the form's other fields. */
const SIZE = BATCH_UPLOAD_LIMIT_BYTES - 16 * 1024;

function fill(row: string): string {
  return `${HEADER}\n${row.repeat(Math.floor((SIZE - HEADER.length - 1) / row.length))}`;
}

const FILES: [string, () => string][] = [
  ['template, 3 rows (baseline)', () => TEMPLATE],
  ['8 MB of empty rows (commas)', () => fill(`${','.repeat(8)}\n`)],
  ['8 MB of empty lines', () => fill('\n')],
  ['8 MB single row of commas', () => `${HEADER}\n${','.repeat(SIZE - HEADER.length - 1)}`],
  ['8 MB single header of commas', () => ','.repeat(SIZE)],
  ['8 MB of valid-looking rows', () => fill(`${ROWS.join('\n')}\n`)],
  [
    '10,000 rows, one malformed (review)',
    () => `${HEADER}\n${Array.from({ length: 9_999 }, (_, i) => ROWS[i % ROWS.length]).join('\n')}\n,,\n`,
  ],
];

interface Measure {
  maxDelayMs: number;
  rssGrowthMb: number;
  ms: number;
}

/** Runs `work` while watching the event loop and RSS. */
async function measure(work: () => Promise<unknown>): Promise<Measure> {
  globalThis.gc?.();
  const rss0 = process.memoryUsage.rss();
  let peak = rss0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const t0 = performance.now();
  await work();
  const ms = performance.now() - t0;
  // A turn after the work, so a stall at its very end is sampled too.
  await new Promise((r) => setTimeout(r, 30));
  delay.disable();
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  return { maxDelayMs: delay.max / 1e6, rssGrowthMb: (peak - rss0) / 2 ** 20, ms };
}

async function upload(c: PortalClient, csv: string): Promise<{ status: number; bytes: number }> {
  const form = (await c.get('/portal/batches')).text;
  const submission = /name="submission" value="([^"]+)"/.exec(form)?.[1] ?? '';
  const data = new FormData();
  data.append('_csrf', csrfToken(form));
  data.append('submission', submission);
  data.append('name', '');
  data.append('file', new Blob([csv], { type: 'text/csv' }), 'schedule.csv');
  const res = await c.postMultipart('/portal/batches', data);
  return { status: res.status, bytes: Buffer.byteLength(res.text) };
}

const row = (cells: (string | number)[]) =>
  `  ${String(cells[0]).padEnd(38)}${cells
    .slice(1)
    .map((c) => String(c).padStart(11))
    .join('')}`;
const f1 = (x: number) => x.toFixed(1);

export async function run(): Promise<void> {
  console.log(
    `bench/batch-upload: max event-loop stall per upload, target ${TARGET_MS} ms (ratio ≤ 1 passes)`,
  );
  const h: PortalHarness = await startPortal();
  try {
    const owner = await signInWithLink(h.url, h.loginPath);
    await upload(owner, TEMPLATE);
    const idle = await measure(() => new Promise((r) => setTimeout(r, 1000)));
    console.log(' through POST /portal/batches (PGlite, one member):');
    console.log(row(['file', 'max ms', 'x target', 'RSS +MB', 'status', 'page KB', 'total ms']));
    console.log(
      row([
        'idle loop, 1 s (baseline)',
        f1(idle.maxDelayMs),
        (idle.maxDelayMs / TARGET_MS).toFixed(2),
        f1(idle.rssGrowthMb),
        '',
        '',
        Math.round(idle.ms),
      ]),
    );
    let failed = 0;
    for (const [name, make] of FILES) {
      const csv = make();
      let answer = { status: 0, bytes: 0 };
      const m = await measure(async () => {
        answer = await upload(owner, csv);
      });
      if (m.maxDelayMs > TARGET_MS) failed++;
      console.log(
        row([
          name,
          f1(m.maxDelayMs),
          (m.maxDelayMs / TARGET_MS).toFixed(2),
          f1(m.rssGrowthMb),
          answer.status,
          f1(answer.bytes / 1024),
          Math.round(m.ms),
        ]),
      );
    }
    console.log(' the parser alone (readScheduleCsv):');
    console.log(row(['file', 'max ms', 'x target', 'RSS +MB', 'problems', 'checks', 'total ms']));
    for (const [name, make] of FILES) {
      const csv = make();
      let parsed = { problemCount: 0, checks: [] as unknown[] };
      const m = await measure(async () => {
        parsed = await readScheduleCsv(csv);
      });
      if (m.maxDelayMs > TARGET_MS) failed++;
      console.log(
        row([
          name,
          f1(m.maxDelayMs),
          (m.maxDelayMs / TARGET_MS).toFixed(2),
          f1(m.rssGrowthMb),
          parsed.problemCount,
          parsed.checks.length,
          Math.round(m.ms),
        ]),
      );
    }
    console.log(failed ? ` ${failed} measurement(s) over the target` : ' every upload within the target');
  } finally {
    await h.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
