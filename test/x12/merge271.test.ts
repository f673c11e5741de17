/** One result from the 271s of a check asked one 270 per service type code (src/x12/merge271.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { joinInterchanges, merge271 } from '../../src/x12/merge271.ts';
import { parse271, parse271All } from '../../src/x12/parse271.ts';
import type { Eligibility271 } from '../../src/x12/types.ts';
import { build271, simple271 } from './build.ts';

const PLAN = 'EB*1*IND*30*PR*GOLD PLAN';

function answer(rows: string[], trace = 'TRN*1*PAYERTRACE1*9PAYER'): { x12: string; result: Eligibility271 } {
  const body = simple271([PLAN, ...rows]);
  body.splice(body.indexOf('TRN*2*TRACE1*9CLINIC') + 1, 0, trace);
  const x12 = build271(body);
  const parsed = parse271(x12, { traceNumber: 'TRACE1' });
  assert.equal(parsed.kind, '271');
  return { x12, result: parsed.result };
}

test('benefit rows are concatenated in inquiry order with their codes; rows an earlier answer had are kept once', () => {
  const pt = answer(['EB*B*IND*PT***27*30*****Y', 'MSG*PT COPAY']);
  const mh = answer(['EB*B*IND*MH***27*25*****Y', 'EB*B*IND*MH***27*25*****Y'], 'TRN*1*PAYERTRACE2*9PAYER');
  const merged = merge271([pt.result, mh.result]);
  const codes = merged.benefitsInformation.map((b) => [b.code, b.serviceTypeCodes?.join('^')]);
  assert.deepEqual(codes, [
    ['1', '30'],
    ['B', 'PT'],
    // The plan row both answers repeat is kept once; the two MH rows of one answer both stay.
    ['B', 'MH'],
    ['B', 'MH'],
  ]);
  assert.deepEqual(merged.benefitsInformation[1]!.additionalInformation, [{ description: 'PT COPAY' }]);
  // Both payer traces (TRN*1) and our echo (TRN*2, once).
  assert.deepEqual(
    merged.subscriberTraceNumbers.map((t) => `${t.traceTypeCode}:${t.referenceIdentification}`),
    ['2:TRACE1', '1:PAYERTRACE1', '1:PAYERTRACE2'],
  );
  assert.equal(merged.planActive, true);
  assert.equal(merged.payer.payerName, 'ACME HEALTH');
  assert.equal(merged.clientX12, undefined);
  // The inputs are not changed.
  assert.equal(pt.result.benefitsInformation.length, 2);
});

test('one answer is returned as it is', () => {
  const only = answer(['EB*B*IND*PT***27*30*****Y']);
  assert.equal(merge271([only.result]), only.result);
  assert.throws(() => merge271([]));
});

test('plan status: the answers that state one decide; a contradiction is left to the interpreter', () => {
  const active = answer([]).result;
  const silent = { ...answer([]).result, planActive: undefined };
  const inactive = { ...answer([]).result, planActive: false };
  assert.equal(merge271([silent, active]).planActive, true);
  assert.equal(merge271([active, silent]).planActive, true);
  assert.equal(merge271([active, inactive]).planActive, undefined);
  assert.equal(merge271([silent, silent]).planActive, undefined);
});

test('joinInterchanges: one answer unchanged; several one after the other, each 271 read back by parse271All', () => {
  const pt = answer(['EB*B*IND*PT***27*30*****Y']).x12;
  const mh = answer(['EB*B*IND*MH***27*25*****Y']).x12;
  assert.equal(joinInterchanges([pt]), pt);
  const joined = joinInterchanges([pt, mh]);
  assert.equal(joined, `${pt}\n${mh}\n`);
  const each = parse271All(joined);
  assert.equal(each.length, 2);
  const rows = each.map((o) =>
    o.kind === '271' ? o.result.benefitsInformation.map((b) => b.serviceTypeCodes) : [],
  );
  assert.deepEqual(rows, [
    [['30'], ['PT']],
    [['30'], ['MH']],
  ]);
  // An answer whose last segment has no terminator gets it, so the next ISA is a segment of its own.
  const bare = pt.replace(/~$/, '');
  assert.equal(joinInterchanges([bare, mh]), joined);
});
