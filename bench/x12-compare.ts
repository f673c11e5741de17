/**
 * bench/x12-compare: parse + interpret of this tree against another tree of the same repository (e.g. the
 * commit before a change, checked out with `git worktree add`), each as a ratio to node-x12, in one
 * process. On a machine shared with other jobs absolute MB/s are noise, and so is a ratio of two runs made
 * seconds apart; here each round times node-x12, the baseline and this tree back to back (in a rotating
 * order), and the report gives, per input:
 *   - each engine's median MB/s and median ratio to node-x12 (what bench/x12 prints, for one tree);
 *   - this tree's ratio relative to the baseline's, which is t(baseline) / t(this tree) of the same round
 *     (node-x12's time cancels out): the median over rounds with its quartiles, and the same from each
 *     engine's fastest run (the run least disturbed by other jobs).
 *
 * BENCH_CLOCK=cpu times each run in process CPU time instead of wall-clock time: on a machine shared with
 * other jobs a run that is preempted then costs no more than one that is not.
 *
 * Run: `node --import tsx bench/x12-compare.ts BASELINE_TREE [ROUNDS] [corpus|synthetic]` (the baseline
 * tree needs its own `npm install`). Not part of `npm run bench`: it needs a second tree.
 */
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { X12Parser } from 'node-x12';
import type { InterpretBenefits } from '../src/benefits/types.ts';
import type { Parsed271Outcome } from '../src/x12/types.ts';
import { corpus271s, synthetic5MB } from './x12.ts';

interface Engine {
  name: string;
  parse271Each: (text: string) => Iterable<Parsed271Outcome>;
  interpret: InterpretBenefits;
}

async function engine(name: string, root: string): Promise<Engine> {
  const url = (path: string) => pathToFileURL(resolve(root, path)).href;
  const parser = (await import(url('src/x12/parse271.ts'))) as Pick<Engine, 'parse271Each'>;
  const interpreter = (await import(url('src/benefits/interpret.ts'))) as {
    interpretBenefits: InterpretBenefits;
  };
  return { name, parse271Each: parser.parse271Each, interpret: interpreter.interpretBenefits };
}

function parseAndInterpret(e: Engine, texts: string[]): void {
  for (const t of texts) {
    for (const outcome of e.parse271Each(t)) {
      if (outcome.kind !== '271') continue;
      e.interpret({
        benefitsInformation: outcome.result.benefitsInformation,
        planActive: outcome.result.planActive,
        requestedServiceTypeCodes: [],
      });
    }
  }
}

function nodeX12(texts: string[]): void {
  for (const t of texts) new X12Parser(false).parse(t);
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low]! + (sorted[Math.ceil(at)]! - sorted[low]!) * (at - low);
}

const median = (values: number[]) => quantile(values, 0.5);

const CPU_CLOCK = process.env.BENCH_CLOCK === 'cpu';

/** One timed run repeats the pass until it lasts about this long. */
const RUN_MS = Number(process.env.BENCH_RUN_MS ?? 100);

interface Timed {
  name: string;
  work: () => void;
  perRun: number;
}

/** Warm a pass up for `ms` and return how many passes make one run of about RUN_MS. */
function calibrate(work: () => void, ms: number): number {
  const started = performance.now();
  let passes = 0;
  while (performance.now() < started + ms) {
    work();
    passes++;
  }
  return Math.max(1, Math.ceil((RUN_MS * passes) / (performance.now() - started)));
}

/** Seconds per pass: wall-clock, or with BENCH_CLOCK=cpu the process CPU time (user + system; the kernel
 * accounts it to the microsecond, though other threads of the process, e.g. the GC helpers, count too). */
function secondsPerPass(t: Timed): number {
  if (CPU_CLOCK) {
    const before = process.cpuUsage();
    for (let k = 0; k < t.perRun; k++) t.work();
    const spent = process.cpuUsage(before);
    return (spent.user + spent.system) / 1e6 / t.perRun;
  }
  const started = performance.now();
  for (let k = 0; k < t.perRun; k++) t.work();
  return (performance.now() - started) / 1000 / t.perRun;
}

const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;

async function main(): Promise<void> {
  const [baseArg, roundsArg, only] = process.argv.slice(2);
  if (!baseArg) {
    console.error('usage: node --import tsx bench/x12-compare.ts BASELINE_TREE [ROUNDS] [corpus|synthetic]');
    process.exit(2);
  }
  const baseRoot = isAbsolute(baseArg) ? baseArg : resolve(process.cwd(), baseArg);
  const rounds = Number(roundsArg ?? 30);
  const engines = [
    await engine('baseline', baseRoot),
    await engine('this tree', new URL('..', import.meta.url).pathname),
  ];
  const inputs = [
    { name: 'corpus', texts: () => corpus271s() },
    { name: 'synthetic', texts: () => [synthetic5MB()] },
  ].filter((i) => only === undefined || i.name === only);
  console.log(`baseline: ${baseRoot}`);
  for (const input of inputs) {
    const texts = input.texts();
    const mb = texts.reduce((n, t) => n + Buffer.byteLength(t), 0) / 1e6;
    const timed: Timed[] = [
      { name: 'node-x12', work: () => nodeX12(texts), perRun: 1 },
      ...engines.map((e) => ({ name: e.name, work: () => parseAndInterpret(e, texts), perRun: 1 })),
    ];
    for (const t of timed) t.perRun = calibrate(t.work, 1500);
    const seconds = new Map<string, number[]>(timed.map((t) => [t.name, []]));
    for (let r = 0; r < rounds; r++) {
      // Rotate the order so no engine always runs right after the same one (GC debt, CPU frequency).
      for (let k = 0; k < timed.length; k++) {
        const t = timed[(k + r) % timed.length]!;
        seconds.get(t.name)!.push(secondsPerPass(t));
      }
    }
    const node = seconds.get('node-x12')!;
    console.log(`\n${input.name}: ${mb.toFixed(2)} MB, ${rounds} rounds of ~${RUN_MS} ms per engine`);
    for (const t of timed) {
      const s = seconds.get(t.name)!;
      const ratio =
        t.name === 'node-x12' ? '' : `   ${median(s.map((x, r) => node[r]! / x)).toFixed(2)}× node-x12`;
      console.log(`  ${t.name.padEnd(10)} ${(mb / median(s)).toFixed(1).padStart(7)} MB/s${ratio}`);
    }
    const base = seconds.get('baseline')!;
    const ours = seconds.get('this tree')!;
    const change = ours.map((s, r) => base[r]! / s - 1);
    console.log(
      `  this tree's ratio vs the baseline's: median ${pct(median(change))} (quartiles ${pct(quantile(change, 0.25))} … ${pct(quantile(change, 0.75))}); fastest runs ${pct(Math.min(...base) / Math.min(...ours) - 1)}`,
    );
  }
}

await main();
