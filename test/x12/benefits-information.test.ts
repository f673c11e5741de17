/**
 * EB13 (composite medical procedure identifier) and the DTP 291/292 benefit period under an EB, read by
 * src/x12/benefits-information.ts whatever component and repetition separators the ISA declares.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse271 } from '../../src/x12/parse271.ts';
import { build271, ISA, simple271 } from './build.ts';

/** A 271 whose ISA declares `component` (ISA16) and `repetition` (ISA11); rows are written with `:` and `^`. */
function with271(rows: string[], component: string, repetition: string): string {
  const text = build271(simple271(rows));
  const isa = `${ISA.slice(0, 82)}${repetition}${ISA.slice(83, 104)}${component}~`;
  assert.equal(isa.length, ISA.length);
  const body = text.slice(ISA.length).replace(/[:^]/g, (c) => (c === ':' ? component : repetition));
  return isa + body;
}

function benefits(text: string) {
  const outcome = parse271(text);
  assert.equal(outcome.kind, '271');
  if (outcome.kind !== '271') throw new Error('not a 271');
  return outcome.result.benefitsInformation;
}

const HCPCS = 'Health Care Financing Administration Common Procedural Coding System (HCPCS) Codes';

describe('EB13 composite medical procedure identifier', () => {
  const separators: [string, string][] = [
    [':', '^'],
    ['|', '^'],
    ['>', '^'],
    ['^', '{'],
    ['\\', '}'],
  ];
  for (const [component, repetition] of separators) {
    test(`component separator ${component} (repetition ${repetition})`, () => {
      const b = benefits(
        with271(
          [
            'EB*1*IND*30^MH*MB',
            'EB*B*IND****27*20*****Y*HC:80061',
            'EB*D*IND**MB*********HC:G0389:26:TC',
            'EB*C*IND*30*MB**23*257',
          ],
          component,
          repetition,
        ),
      );
      assert.deepEqual(b[0]!.serviceTypeCodes, ['30', 'MH'], 'EB03 repetitions');
      assert.deepEqual(b[1]!.compositeMedicalProcedureIdentifier, {
        productOrServiceIdQualifierCode: 'HC',
        productOrServiceIdQualifier: HCPCS,
        procedureCode: '80061',
      });
      assert.equal(b[1]!.serviceTypeCodes, undefined);
      assert.deepEqual(b[2]!.compositeMedicalProcedureIdentifier, {
        productOrServiceIdQualifierCode: 'HC',
        productOrServiceIdQualifier: HCPCS,
        procedureCode: 'G0389',
        procedureModifiers: ['26', 'TC'],
      });
      assert.equal(b[3]!.compositeMedicalProcedureIdentifier, undefined);
    });
  }

  test('up to four modifiers; the description (EB13-7) is not a modifier; blanks are dropped', () => {
    const b = benefits(with271(['EB*B*IND****27*20******hc: 97110 :GP::59:KX:PHYSICAL THERAPY'], ':', '^'));
    assert.deepEqual(b[0]!.compositeMedicalProcedureIdentifier, {
      productOrServiceIdQualifierCode: 'HC',
      productOrServiceIdQualifier: HCPCS,
      procedureCode: '97110',
      procedureModifiers: ['GP', '59', 'KX'],
    });
  });

  test('a procedure-specific row (EB13, no EB03) in a real Medicare layout is kept in benefitsInformation', () => {
    const b = benefits(
      with271(['EB*1**30*MB', 'EB*D*IND**MB*********HC:82270', 'DTP*348*D8*20070101'], '|', '^'),
    );
    assert.equal(b.length, 2);
    assert.equal(b[1]!.compositeMedicalProcedureIdentifier?.procedureCode, '82270');
    assert.deepEqual(b[1]!.benefitsDateInformation, { benefitBegin: '20070101' });
  });
});

describe('DTP 291/292 under an EB', () => {
  test('291 is the plan period, 292 the benefit period, as sent (RD8 or D8)', () => {
    const b = benefits(
      with271(
        [
          'EB*C**30*MA**26*1676',
          'DTP*291*RD8*20260101-20261231',
          'EB*C**42^45*MA**26*0',
          'DTP*292*RD8*20260101-20261231',
          'EB*X**45*MA**26',
          'DTP*292*D8*20260130',
        ],
        ':',
        '^',
      ),
    );
    assert.deepEqual(b[0]!.benefitsDateInformation, { plan: '20260101-20261231' });
    assert.deepEqual(b[1]!.serviceTypeCodes, ['42', '45']);
    assert.deepEqual(b[1]!.benefitsDateInformation, { benefit: '20260101-20261231' });
    assert.deepEqual(b[2]!.benefitsDateInformation, { benefit: '20260130' });
  });
});
