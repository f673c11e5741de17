/**
 * Bad input: truncated files, wrong counts and control numbers, binary garbage, empty input, a 50 MB
 * input, 100k HL loops and random mutations of real files. The parser answers with data and issues or
 * throws an X12Error with typed issues, in bounded time and memory; never any other exception.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parse271, parse271All } from '../../src/x12/parse271.ts';
import { tokenize } from '../../src/x12/tokenizer.ts';
import { type Parsed271Outcome, X12Error } from '../../src/x12/types.ts';
import { CORPUS } from '../helpers/x12-corpus.ts';
import { build271, ISA, interchange, simple271, transaction } from './build.ts';

const corpus = (path: string) => readFileSync(new URL(path, CORPUS), 'utf8');

/** parse271's outcome, or the X12Error it threw; any other exception fails the test. */
function attempt(text: string, options?: { traceNumber?: string }): Parsed271Outcome | X12Error {
  try {
    return parse271(text, options);
  } catch (err) {
    assert.ok(err instanceof X12Error, `untyped throw: ${(err as Error)?.name}`);
    assert.ok(err.issues.length > 0, 'an X12Error carries issues');
    for (const i of err.issues) assert.match(i.code, /^X12_[A-Z0-9_]+$/);
    return err;
  }
}

/** Deterministic pseudo-random numbers (mulberry32), so failures reproduce. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('unreadable input is a typed X12Error', () => {
  for (const [name, input, code] of [
    ['empty string', '', 'X12_EMPTY'],
    ['whitespace', '\n\r\n  \t', 'X12_EMPTY'],
    ['a BOM only', '\ufeff', 'X12_EMPTY'],
    ['not text', null as unknown as string, 'X12_EMPTY'],
    ['HTML error page', '<html><body>502 Bad Gateway</body></html>', 'X12_NO_ISA'],
    ['ISA cut in half', ISA.slice(0, 60), 'X12_BAD_ISA'],
    ['a 270', build271(simple271()).replace('ST*271', 'ST*270'), 'X12_NO_271'],
  ] as const) {
    test(name, () => {
      const outcome = attempt(input);
      assert.ok(outcome instanceof X12Error);
      assert.equal(outcome.issues[0]!.code, code);
      assert.equal(outcome.issues[0]!.severity, 'error');
    });
  }
});

describe('truncated files', () => {
  for (const path of [
    'tigershark/271_5010_medica_hsd.txt',
    'oopfactory/271_4010_CMS_HETS.txt',
    'cosyte-x12/271_5010A1_canonical.edi',
  ]) {
    test(`${path} cut at every 3% of its length`, () => {
      const text = corpus(path);
      const seAt = text.indexOf('SE', text.lastIndexOf('EB'));
      for (let k = 1; k < 34; k++) {
        const cut = Math.floor((text.length * k) / 34);
        const outcome = attempt(text.slice(0, cut));
        if (outcome instanceof X12Error) continue;
        assert.equal(outcome.kind, '271');
        if (outcome.kind !== '271') continue;
        const truncated = outcome.result.issues.find((i) => i.code === 'X12_TRUNCATED');
        if (cut < seAt) {
          assert.equal(truncated?.severity, 'error', `cut at ${cut}`);
          assert.ok(outcome.result.warnings.some((w) => w.code === 'X12_TRUNCATED'));
        }
      }
    });
  }

  test('cut after SE: the data is complete, the missing trailers are warnings', () => {
    const text = build271(simple271());
    const r = attempt(text.slice(0, text.indexOf('GE*')));
    assert.ok(!(r instanceof X12Error) && r.kind === '271');
    assert.deepEqual(
      r.result.issues.map((i) => [i.code, i.severity]),
      [
        ['X12_MISSING_GE', 'warning'],
        ['X12_MISSING_IEA', 'warning'],
      ],
    );
    assert.equal(r.result.planActive, true);
  });
});

describe('wrong counts and control numbers are warnings with positions', () => {
  const text = build271(simple271());
  const cases: [string, (s: string) => string, string, number][] = [
    ['SE01', (s) => s.replace('SE*12*0001', 'SE*99*0001'), 'X12_SE01_MISMATCH', 14],
    ['SE02', (s) => s.replace('SE*12*0001', 'SE*12*0002'), 'X12_ST_SE_CONTROL_MISMATCH', 14],
    ['GE01', (s) => s.replace('GE*1*1', 'GE*3*1'), 'X12_GE01_MISMATCH', 15],
    ['GE02', (s) => s.replace('GE*1*1', 'GE*1*7'), 'X12_GS_GE_CONTROL_MISMATCH', 15],
    ['IEA01', (s) => s.replace('IEA*1*', 'IEA*2*'), 'X12_IEA01_MISMATCH', 16],
    ['IEA02', (s) => s.replace('IEA*1*000000001', 'IEA*1*000000009'), 'X12_ISA_IEA_CONTROL_MISMATCH', 16],
    ['SE01 not a number', (s) => s.replace('SE*12*0001', 'SE*XII*0001'), 'X12_SE01_MISMATCH', 14],
  ];
  test('the unmodified file has no issue', () => {
    const r = attempt(text);
    assert.ok(!(r instanceof X12Error) && r.kind === '271');
    assert.deepEqual(r.result.issues, []);
  });
  for (const [name, change, code, position] of cases) {
    test(name, () => {
      const r = attempt(change(text));
      assert.ok(!(r instanceof X12Error) && r.kind === '271');
      assert.deepEqual(
        r.result.issues.map((i) => [i.code, i.severity, i.position]),
        [[code, 'warning', position]],
      );
      assert.equal(r.result.subscriber.memberId, 'M100');
      assert.ok(
        !r.result.warnings.some((w) => w.code === code),
        'envelope bookkeeping is not a client warning',
      );
    });
  }
});

describe('binary garbage and mutations never throw untyped', () => {
  test('300 random byte strings, alone and after a valid ISA', () => {
    const next = random(271);
    for (let n = 0; n < 300; n++) {
      const length = 1 + Math.floor(next() * 4000);
      let garbage = '';
      for (let k = 0; k < length; k++) garbage += String.fromCharCode(Math.floor(next() * 256));
      attempt(garbage);
      attempt(ISA + garbage);
      attempt(`${ISA}GS*HB*A*B*20260101*1200*1*X*005010X279A1~ST*271*1~${garbage}`);
    }
  });

  test('500 random mutations of real 271s (deleted, duplicated and swapped characters)', () => {
    const next = random(5010);
    const files = [
      'tigershark/271_4010_commercial_109EB.txt',
      'oopfactory/271_5010_IG_3_1_2_all_AAA_levels.txt',
      'linuxforhealth-x12/271_5010A1_dependent.271',
    ].map(corpus);
    const pick = (s: string) => Math.floor(next() * s.length);
    for (let n = 0; n < 500; n++) {
      let text = files[n % files.length]!;
      for (let m = 0; m < 1 + Math.floor(next() * 8); m++) {
        const at = pick(text);
        const kind = next();
        if (kind < 0.3) text = text.slice(0, at) + text.slice(at + 1 + Math.floor(next() * 20));
        else if (kind < 0.6) text = text.slice(0, at) + text[pick(text)] + text.slice(at);
        else text = text.slice(0, at) + '*~^|:\n'[Math.floor(next() * 6)] + text.slice(at + 1);
      }
      attempt(text, { traceNumber: 'X' });
      try {
        parse271All(text);
      } catch (err) {
        assert.ok(err instanceof X12Error);
      }
    }
  });
});

describe('large inputs in bounded time and memory', () => {
  test('a 50 MB batch of 271s', () => {
    const one = transaction(
      simple271(['EB*1*IND*30*PR*GOLD PLAN', 'EB*B*IND*98***27*25****N*Y', 'MSG*OFFICE VISIT']),
    );
    const perTransaction = one.join('~\n').length + 2;
    const count = Math.ceil((50 * 1024 * 1024) / perTransaction);
    const text = interchange(
      Array.from({ length: count }, (_, k) =>
        one.map((s) => s.replace(/0001$/, String(k + 1).padStart(4, '0'))),
      ),
    );
    assert.ok(text.length >= 50 * 1024 * 1024);
    const before = process.memoryUsage();
    const started = performance.now();
    const r = attempt(text);
    const elapsed = performance.now() - started;
    const after = process.memoryUsage();
    assert.ok(!(r instanceof X12Error) && r.kind === '271');
    assert.equal(r.result.benefitsInformation.length, 2);
    assert.ok(elapsed < 20_000, `${elapsed} ms`);
    const grown = after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers;
    assert.ok(grown < 600 * 1024 * 1024, `${Math.round(grown / 1e6)} MB`);
  });

  test('one transaction with 250k EB rows (about 10 MB)', () => {
    const rows = Array.from({ length: 250_000 }, (_, k) =>
      k % 2 ? 'EB*B*IND*98***27*25****N*Y' : 'EB*A*IND*PT****.2***N*Y',
    );
    const started = performance.now();
    const r = attempt(build271(simple271(rows)));
    assert.ok(!(r instanceof X12Error) && r.kind === '271');
    assert.equal(r.result.benefitsInformation.length, 250_000);
    assert.ok(performance.now() - started < 15_000);
  });

  test('100k dependents under one subscriber', () => {
    const body = simple271(['EB*1*IND*30*PR*GOLD PLAN']).map((s) =>
      s === 'HL*3*2*22*0' ? 'HL*3*2*22*1' : s,
    );
    for (let k = 0; k < 100_000; k++) body.push(`HL*${k + 4}*3*23*0`, `NM1*03*1*DOE*KID${k}`);
    const started = performance.now();
    const r = attempt(build271(body));
    assert.ok(!(r instanceof X12Error) && r.kind === '271');
    assert.equal(r.result.dependents.length, 100_000);
    assert.equal(r.result.benefitsInformation.length, 1);
    assert.ok(performance.now() - started < 15_000);
  });

  test('100k HL segments with empty HL01 and broken parents: issues stay bounded', () => {
    const body = simple271([]);
    for (let k = 0; k < 100_000; k++) body.push(`HL**${k}*23*0`, 'EB*1*IND*30');
    const r = attempt(build271(body));
    assert.ok(!(r instanceof X12Error) && r.kind === '271');
    assert.ok(r.result.issues.length < 100, `${r.result.issues.length} issues`);
    const summary = r.result.issues.find((i) => i.code === 'X12_HL_EMPTY_ID' && !i.position);
    assert.match(summary!.message, /99975 more/);
    // Every one of those dependents has benefits and the subscriber none: no guess is made.
    assert.deepEqual(r.result.benefitsInformation, []);
    assert.ok(r.result.warnings.some((w) => w.code === 'X12_BENEFITS_ON_SEVERAL_DEPENDENTS'));
  });

  test('tokenize: 2 million one-character elements in one segment', () => {
    const text = `${ISA}GS*HB*A*B*20260101*1200*1*X*005010X279A1~ST*271*1~MSG${'*x'.repeat(2_000_000)}~`;
    const t = tokenize(text);
    assert.equal(t.elementCount(3), 2_000_000);
    assert.equal(t.element(3, 1_999_999), 'x');
  });
});
