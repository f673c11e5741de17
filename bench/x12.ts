/**
 * bench/x12: MB/s and segments/s of the X12 engine (tokenize, parse, parse + interpret) over the 29 corpus
 * 271s and over a synthetic ~5 MB batch of repeated real 271s, each as a ratio against baselines measured
 * in the same run: (a) node-x12's X12Parser, (b) String.split on the terminator then the element separator,
 * (c) a byte scan that only records separator offsets into a typed array. Targets: parse + interpret
 * ≥ 5× node-x12 and ≥ 0.3× the byte scan. Warm-up, then the median of repeated runs of ≥ 100 ms; peak RSS
 * of the 5 MB input is measured in a fresh child process per operation.
 *
 * A `floor` row shows what the targets ask of the output: tokenize, then build the very objects parse +
 * interpret return with every value already known (no field read, no code named, no rule run). It is a
 * practical floor for any parser that returns the spec's result eagerly; the closing lines say how far
 * parse + interpret is from it.
 *
 * Run: `node --import tsx bench/x12.ts` (or `npm run bench -- x12`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { X12Parser } from 'node-x12';
import type { Interpretation, InterpretBenefits } from '../src/benefits/types.ts';
import { parse271Each } from '../src/x12/parse271.ts';
import { readDelimiters } from '../src/x12/segments.ts';
import { tokenize } from '../src/x12/tokenizer.ts';
import type { Delimiters, Eligibility271 } from '../src/x12/types.ts';

/** The public corpus vendored for the tests (test/fixtures/x12-corpus/README.md). */
const SAMPLES = fileURLToPath(new URL('../test/fixtures/x12-corpus/', import.meta.url));
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 1500);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
/** The targets for parse + interpret: at least these multiples of node-x12 and of the byte scan. */
const TARGET_VS_NODE_X12 = 5;
const TARGET_VS_BYTE_SCAN = 0.3;

interface Input {
  name: string;
  texts: string[];
  bytes: number;
  segments: number;
  delimiters: Delimiters[];
  buffers: Buffer[];
  /** The 271s parsed, for the interpreter-only row; made before the rows run and dropped after. */
  parsed?: Eligibility271[];
  /** Blueprints of the parse + interpret output, for the floor row; made and dropped the same way. */
  blueprints?: unknown[];
}

function input(name: string, texts: string[]): Input {
  return {
    name,
    texts,
    bytes: texts.reduce((n, t) => n + Buffer.byteLength(t), 0),
    segments: texts.reduce((n, t) => n + tokenize(t).segmentCount, 0),
    delimiters: texts.map(readDelimiters),
    buffers: texts.map((t) => Buffer.from(t, 'latin1')),
  };
}

export function corpus271s(): string[] {
  return readFileSync(join(SAMPLES, 'PROVENANCE.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split('\t'))
    .filter((cells) => cells[6] === '271')
    .map((cells) => readFileSync(join(SAMPLES, cells[0]!), 'utf8'));
}

/**
 * One 5010 interchange of ~5 MB: the real transactions of two ZirMed files (Medica 5010 with HSD/MSG/LS,
 * and the 109-EB commercial 4010 response, both `|`-delimited) repeated with fresh control numbers.
 */
export function synthetic5MB(): string {
  const medica = readFileSync(join(SAMPLES, 'tigershark/271_5010_medica_hsd.txt'), 'utf8').replaceAll(
    '\r',
    '',
  );
  const commercial = readFileSync(join(SAMPLES, 'tigershark/271_4010_commercial_109EB.txt'), 'utf8');
  const body = (text: string) => {
    const segments = text.split('~').map((s) => s.trim());
    return segments.slice(
      segments.findIndex((s) => s.startsWith('ST|')),
      segments.findIndex((s) => s.startsWith('GE|')),
    );
  };
  const isa = medica.slice(0, medica.indexOf('~') + 1);
  const gs = 'GS|HB|ZIRMED|10864|20160301|1354|1|X|005010X279A1';
  const sources = [body(medica), body(commercial)];
  const out: string[] = [gs];
  let size = isa.length;
  let count = 0;
  while (size < 5 * 1024 * 1024) {
    const control = String(++count).padStart(9, '0');
    for (const s of sources[count % 2]!) {
      const segment = s
        .replace(/^(ST\|271\|)[^|~]*/, `$1${control}`)
        .replace(/^(SE\|\d+\|).*/, `$1${control}`);
      out.push(segment);
      size += segment.length + 2;
    }
  }
  out.push(`GE|${count}|1`, 'IEA|1|000184077');
  return `${isa}\n${out.join('~\n')}~\n`;
}

function byteScan(buffer: Buffer, element: number, terminator: number): number {
  const offsets = new Int32Array(buffer.length >> 2);
  let n = 0;
  for (let i = 0; i < buffer.length; i++) {
    const c = buffer[i]!;
    if (c === element || c === terminator) offsets[n++] = i;
  }
  return n;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

/** A timed run repeats the pass until it lasts about this long (the corpus pass takes only milliseconds). */
const MIN_RUN_MS = 100;

/**
 * Median seconds of one pass of each operation. Each is warmed up and its passes per run calibrated; then
 * the runs take turns (one run of every operation per round), so that a slow spell of the host slows
 * every row alike and the ratios stay meaningful.
 */
function measureAll(works: Record<string, () => void>): Record<string, number> {
  const plans = Object.entries(works).map(([name, work]) => {
    const warmStarted = performance.now();
    let passes = 0;
    while (performance.now() < warmStarted + WARMUP_MS) {
      work();
      passes++;
    }
    const perRun = Math.max(1, Math.ceil((MIN_RUN_MS * passes) / (performance.now() - warmStarted)));
    return { name, work, perRun, times: [] as number[] };
  });
  for (let r = 0; r < RUNS; r++) {
    for (const p of plans) {
      const started = performance.now();
      for (let k = 0; k < p.perRun; k++) p.work();
      p.times.push((performance.now() - started) / 1000 / p.perRun);
    }
  }
  return Object.fromEntries(plans.map((p) => [p.name, median(p.times)]));
}

async function loadInterpreter(): Promise<InterpretBenefits | undefined> {
  try {
    const mod = (await import(new URL('../src/benefits/interpret.ts', import.meta.url).href)) as {
      interpretBenefits?: InterpretBenefits;
    };
    return mod.interpretBenefits;
  } catch {
    return undefined;
  }
}

function interpretOne(interpret: InterpretBenefits, r: Eligibility271): Interpretation {
  return interpret({
    benefitsInformation: r.benefitsInformation,
    planActive: r.planActive,
    requestedServiceTypeCodes: [],
  });
}

/**
 * The floor of any eager parse + interpret (see `floor` below): the output's object graph as blueprints,
 * one compiled builder per object shape that makes the object with a literal, as a hand-written parser
 * would. Strings and numbers are shared, never made.
 */
interface Blueprint {
  build: (parts: unknown[], make: (part: unknown) => unknown) => unknown;
  parts: unknown[];
}

const builders = new Map<string, Blueprint['build']>();

function builder(key: string, body: string): Blueprint['build'] {
  let build = builders.get(key);
  if (!build) {
    build = new Function('parts', 'make', `return ${body};`) as Blueprint['build'];
    builders.set(key, build);
  }
  return build;
}

export function blueprint(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const parts = value.map(blueprint);
    const items = parts.map((_, k) => `make(parts[${k}])`);
    return { build: builder(`[${parts.length}]`, `[${items.join(',')}]`), parts };
  }
  const keys = Object.keys(value);
  const parts = keys.map((k) => blueprint((value as Record<string, unknown>)[k]));
  const fields = keys.map((k, n) => `${JSON.stringify(k)}: make(parts[${n}])`);
  return { build: builder(keys.join('\u0000'), `{${fields.join(',')}}`), parts };
}

export function make(part: unknown): unknown {
  if (part === null || typeof part !== 'object') return part;
  const b = part as Blueprint;
  return b.build(b.parts, make);
}

/** What parse + interpret return for the parsed 271s, as blueprints (one per 271: result and interpretation). */
function outputBlueprints(parsed: Eligibility271[], interpret: InterpretBenefits): unknown[] {
  return parsed.map((r) => blueprint([r, interpretOne(interpret, r)]));
}

/**
 * Every parser tokenizes first, so the targets can be read as a budget in tokenizer times: how long
 * everything after tokenizing may take for parse + interpret to meet ≥ 5× node-x12 and ≥ 0.3× the byte
 * scan, beside what it takes now (`rest`) and what building the output alone takes (`build`, the floor's).
 */
export function afterTokenizing(s: Record<string, number>): {
  nodeX12: number;
  byteScan: number;
  build: number;
  rest: number;
} {
  const t = s.tokenize!;
  return {
    nodeX12: (s['node-x12']! / TARGET_VS_NODE_X12 - t) / t,
    byteScan: (s['byte scan']! / TARGET_VS_BYTE_SCAN - t) / t,
    build: (s.floor! - t) / t,
    rest: (s['parse+interpret']! - t) / t,
  };
}

type Operations = Record<string, ((data: Input) => void) | undefined>;

function operations(interpret: InterpretBenefits | undefined): Operations {
  return {
    tokenize: (d) => {
      for (const t of d.texts) tokenize(t);
    },
    parse: (d) => {
      for (const t of d.texts) for (const _ of parse271Each(t));
    },
    'parse+interpret': interpret
      ? (d) => {
          for (const t of d.texts) {
            for (const outcome of parse271Each(t)) {
              if (outcome.kind === '271') interpretOne(interpret, outcome.result);
            }
          }
        }
      : undefined,
    'interpret only': interpret
      ? (d) => {
          for (const r of d.parsed ?? []) interpretOne(interpret, r);
        }
      : undefined,
    /**
     * The floor of any parser that builds the spec's result eagerly: tokenize, then build the very objects
     * parse + interpret return, every value already known (no field read, no code looked up, no rule run).
     */
    floor: interpret
      ? (d) => {
          for (const t of d.texts) tokenize(t);
          for (const b of d.blueprints ?? []) make(b);
        }
      : undefined,
    'node-x12': (d) => {
      for (const t of d.texts) new X12Parser(false).parse(t);
    },
    'String.split': (d) => {
      d.texts.forEach((t, k) => {
        const { segment, element } = d.delimiters[k]!;
        t.split(segment).map((s) => s.split(element));
      });
    },
    'byte scan': (d) => {
      d.buffers.forEach((b, k) => {
        byteScan(b, d.delimiters[k]!.element.charCodeAt(0), d.delimiters[k]!.segment.charCodeAt(0));
      });
    },
  };
}

const fixed = (n: number, digits = 1) => n.toFixed(digits).padStart(8);

function report(
  data: Input,
  ops: Operations,
  interpret: InterpretBenefits | undefined,
): Record<string, number> {
  // The prepared inputs of `interpret only` and `floor` stay in memory while every row runs.
  data.parsed = data.texts.flatMap((t) =>
    [...parse271Each(t)].flatMap((o) => (o.kind === '271' ? [o.result] : [])),
  );
  if (interpret) data.blueprints = outputBlueprints(data.parsed, interpret);
  const works: Record<string, () => void> = {};
  for (const [name, op] of Object.entries(ops)) if (op) works[name] = () => op(data);
  const seconds: Record<string, number> = measureAll(works);
  data.parsed = undefined;
  data.blueprints = undefined;
  const mb = data.bytes / 1e6;
  console.log(
    `\n${data.name}: ${(data.bytes / 1e6).toFixed(2)} MB, ${data.segments} segments (median of ${RUNS} runs)`,
  );
  console.log('  operation            MB/s   Msegs/s   ×node-x12   ×split   ×byte-scan');
  // MB/s is always the input's size over the time taken (for `interpret only`: of the same 271s, pre-parsed).
  for (const name of Object.keys(ops)) {
    const s = seconds[name];
    if (s === undefined) {
      console.log(
        `  ${name.padEnd(16)}  skipped: src/benefits/interpret.ts is missing or does not export interpretBenefits`,
      );
      continue;
    }
    const ratio = (base: string) => fixed(seconds[base]! / s, 2);
    console.log(
      `  ${name.padEnd(16)}${fixed(mb / s)}${fixed(data.segments / s / 1e6, 2)}    ${ratio('node-x12')}  ${ratio('String.split')}     ${ratio('byte scan')}`,
    );
  }
  return seconds;
}

/** Peak RSS of a fresh process that reads the 5 MB file and runs one operation on it. */
function peakRss(file: string, operation: string): number {
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), '--rss-child', operation, file],
    {
      encoding: 'utf8',
    },
  );
  const kb = Number(/maxRSS=(\d+)/.exec(child.stdout)?.[1]);
  return kb / 1024;
}

async function rssChild(operation: string, file: string): Promise<void> {
  const text = readFileSync(file, 'utf8');
  const data: Input = {
    name: 'child',
    texts: [text],
    bytes: text.length,
    segments: 0,
    delimiters: [readDelimiters(text)],
    buffers: [Buffer.from(text, 'latin1')],
  };
  const op = operation === 'read only' ? () => {} : operations(await loadInterpreter())[operation];
  op?.(data);
  console.log(`maxRSS=${process.resourceUsage().maxRSS}`);
}

export async function run(): Promise<void> {
  const interpret = await loadInterpreter();
  const ops = operations(interpret);
  console.log(
    'bench/x12: tokenizer, 271 parser and interpreter against node-x12, String.split and a byte scan',
  );
  const results = [
    report(input('corpus: the 29 corpus 271s, one after another', corpus271s()), ops, interpret),
  ];
  const big = synthetic5MB();
  results.push(report(input('synthetic: one interchange of repeated real 271s', [big]), ops, interpret));

  const dir = mkdtempSync(join(tmpdir(), 'bench-x12-'));
  try {
    const file = join(dir, 'batch.x12');
    writeFileSync(file, big);
    console.log('\npeak RSS of a fresh process on the 5 MB input:');
    for (const name of ['read only', 'tokenize', 'parse', 'parse+interpret', 'node-x12']) {
      if (name === 'parse+interpret' && !interpret) continue;
      console.log(`  ${name.padEnd(16)}${fixed(peakRss(file, name), 0)} MB`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (interpret) {
    for (const [k, s] of results.entries()) {
      const full = s['parse+interpret']!;
      const vsNode = s['node-x12']! / full;
      const vsScan = s['byte scan']! / full;
      const floor = s.floor!;
      console.log(
        `target (${k ? 'synthetic' : 'corpus'}): parse+interpret ${vsNode.toFixed(1)}× node-x12 (≥ ${TARGET_VS_NODE_X12}: ${vsNode >= TARGET_VS_NODE_X12 ? 'met' : 'NOT met'}), ${vsScan.toFixed(2)}× byte scan (≥ ${TARGET_VS_BYTE_SCAN}: ${vsScan >= TARGET_VS_BYTE_SCAN ? 'met' : 'NOT met'})`,
      );
      console.log(
        `  the eager floor (tokenize + build the same output, no work) reaches ${(s['node-x12']! / floor).toFixed(1)}× node-x12 and ${(s['byte scan']! / floor).toFixed(2)}× byte scan; parse+interpret takes ${(full / floor).toFixed(1)}× the floor's time`,
      );
      const b = afterTokenizing(s);
      console.log(
        `  after tokenizing, the targets leave ${b.nodeX12.toFixed(2)}× (node-x12) and ${b.byteScan.toFixed(2)}× (byte scan) the tokenizer's time for all the rest; building the output alone takes ${b.build.toFixed(2)}×, parse+interpret ${b.rest.toFixed(2)}×`,
      );
    }
  }
}

const self = process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href;
if (self && process.argv[2] === '--rss-child') await rssChild(process.argv[3]!, process.argv[4]!);
else if (self) await run();
