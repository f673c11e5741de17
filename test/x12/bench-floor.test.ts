/**
 * bench/x12's floor row rebuilds the output of parse + interpret from blueprints. The row is only a fair
 * floor if what it builds is that output, object for object: these tests hold it to that.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { afterTokenizing, blueprint, make } from '../../bench/x12.ts';
import { interpretBenefits } from '../../src/benefits/interpret.ts';
import { parse271 } from '../../src/x12/parse271.ts';
import { CORPUS } from '../helpers/x12-corpus.ts';

const SAMPLE = new URL('tigershark/271_5010_medica_hsd.txt', CORPUS);

describe('bench/x12 floor: blueprints rebuild the very output', () => {
  it('rebuilds a parsed 271 and its interpretation as new, equal objects', () => {
    const outcome = parse271(readFileSync(SAMPLE, 'utf8'));
    assert.equal(outcome.kind, '271');
    const result = outcome.result;
    const interpretation = interpretBenefits({
      benefitsInformation: result.benefitsInformation,
      planActive: result.planActive,
      requestedServiceTypeCodes: [],
    });
    const original: [typeof result, typeof interpretation] = [result, interpretation];
    const plan = blueprint(original);
    const first = make(plan) as typeof original;
    const second = make(plan) as typeof original;

    assert.deepStrictEqual(first, original);
    assert.equal(JSON.stringify(first), JSON.stringify(original), 'same keys in the same order');
    // Every build makes new objects and arrays (the work the floor times); only leaves are shared.
    assert.notEqual(first, second);
    assert.notEqual(first[0], original[0]);
    assert.notEqual(first[0].benefitsInformation, result.benefitsInformation);
    assert.notEqual(first[0].benefitsInformation[0], result.benefitsInformation[0]);
    assert.notEqual(first[1], original[1]);
  });

  it('keeps leaves as they are, including null, undefined, numbers and empty containers', () => {
    const value = { a: null, b: undefined, c: 0, d: 'x', e: [], f: {}, g: [1, [2, { h: true }]] };
    const copy = make(blueprint(value)) as typeof value;
    assert.deepStrictEqual(copy, value);
    assert.ok('b' in copy);
    assert.notEqual(copy.g[1], value.g[1]);
  });
});

describe('bench/x12 afterTokenizing: the targets as a budget in tokenizer times', () => {
  it('reads seconds per pass into what the targets leave after tokenizing and what is used', () => {
    // Tokenize 1 s; node-x12 10 s, so 5× node-x12 is 2 s: 1 s left. Byte scan 0.6 s, so 0.3× is 2 s: 1 s left.
    const b = afterTokenizing({
      tokenize: 1,
      'node-x12': 10,
      'byte scan': 0.6,
      floor: 1.5,
      'parse+interpret': 4,
    });
    assert.deepStrictEqual(b, { nodeX12: 1, byteScan: 1, build: 0.5, rest: 3 });
  });

  it('is negative when tokenizing alone already misses a target', () => {
    const b = afterTokenizing({
      tokenize: 1,
      'node-x12': 4,
      'byte scan': 0.2,
      floor: 2,
      'parse+interpret': 3,
    });
    assert.ok(b.nodeX12 < 0 && b.byteScan < 0);
  });
});
