/**
 * 999 and TA1 answers name where the inquiry is wrong: the segment and element of the 999's first IK3/IK4,
 * or the ISA element of the TA1 note code; never the bad data itself (IK404).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { parse271 } from '../../src/x12/parse271.ts';
import { CORPUS_DIR } from '../helpers/x12-corpus.ts';

const ISA =
  'ISA*00*          *00*          *ZZ*PAYER          *ZZ*ELIGSVC        *260304*0907*^*00501*000000777*0*P*:~';

function rejection(text: string) {
  const outcome = parse271(text);
  assert.equal(outcome.kind, 'rejected');
  if (outcome.kind !== 'rejected') throw new Error('unreachable');
  return outcome.rejection;
}

test('a 999 names the first segment and element in error, with the codes in words', () => {
  const r = rejection(
    readFileSync(resolve(CORPUS_DIR, 'cosyte-x12/999_5010A1_accept_with_errors.edi'), 'utf8'),
  );
  assert.deepEqual(
    { ...r, message: undefined },
    {
      kind: '999',
      code: 'E',
      message: undefined,
      segment: 'NM1',
      segmentPosition: 8,
      loop: '2010BA',
      element: 'NM101-2',
      errorCode: '7',
      errorDescription: 'Invalid code value',
    },
  );
  assert.match(r.message, /segment NM1 at position 8 in loop 2010BA, element NM101-2: Invalid code value/);
});

test('a 999 without IK4 names the segment and its syntax error', () => {
  const r = rejection(readFileSync(resolve(CORPUS_DIR, 'imsweb-x12-parser/999_5010_rejected.txt'), 'utf8'));
  assert.equal(r.code, 'R');
  assert.equal(r.segment, 'NM');
  assert.equal(r.element, undefined);
  assert.equal(r.errorDescription, 'Unrecognized segment ID');
});

test('the bad data a 999 copies back (IK404) never reaches the rejection', () => {
  const text = [
    ISA,
    'GS*FA*PAYER*ELIGSVC*20260304*0907*777*X*005010X231A1~',
    'ST*999*0001*005010X231A1~',
    'AK1*HS*123456*005010X279A1~',
    'AK2*270*0001*005010X279A1~',
    'IK3*NM1*8*2100C*8~',
    'IK4*9*67*6*SBX1000001~',
    'IK5*R*5~',
    'AK9*R*1*1*0~',
    'SE*8*0001~',
    'GE*1*777~',
    'IEA*1*000000777~',
  ].join('\n');
  const r = rejection(text);
  assert.equal(r.element, 'NM109');
  assert.equal(r.errorDescription, 'Invalid character in data element');
  assert.ok(!JSON.stringify(r).includes('SBX1000001'));
});

test('a TA1 rejection names the ISA element its note code is about', () => {
  const r = rejection(`${ISA}\nTA1*000000123*260304*0907*R*009~\nIEA*0*000000777~`);
  assert.equal(r.kind, 'TA1');
  assert.equal(r.code, 'R');
  assert.equal(r.segment, 'ISA');
  assert.equal(r.element, 'ISA08');
  assert.equal(r.errorCode, '009');
  assert.match(r.message, /TA1 note code 009: Unknown Interchange Receiver ID/);
  const unknown = rejection(`${ISA}\nTA1*000000123*260304*0907*R*999~\nIEA*0*000000777~`);
  assert.equal(unknown.element, undefined);
  assert.match(unknown.message, /note code 999\)/);
});
