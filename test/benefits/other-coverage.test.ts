/**
 * Coordination of benefits (docs/benefit-rules.md section 8): EB*R rows with their 2120C entities become
 * `otherCoverage`, each with the other payer's order, and an OTHER_COVERAGE warning. The public corpus
 * 271s that carry EB*R rows are read end to end (parser, then interpreter); the order rules one by one on
 * rows written by hand.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { interpretBenefits } from '../../src/benefits/interpret.ts';
import { readOtherCoverage } from '../../src/benefits/other-coverage.ts';
import type { BenefitsInformation, BenefitsRelatedEntity } from '../../src/contract/check-response.ts';
import { parse271, parse271All } from '../../src/x12/parse271.ts';
import { CORPUS } from '../helpers/x12-corpus.ts';
import { eb } from './eb.ts';

function corpusRows(file: string): BenefitsInformation[] {
  const outcome = parse271(readFileSync(new URL(file, CORPUS), 'latin1'));
  assert.equal(outcome.kind, '271');
  return outcome.kind === '271' ? outcome.result.benefitsInformation : [];
}

const interpret = (rows: BenefitsInformation[]) =>
  interpretBenefits({ benefitsInformation: rows, planActive: undefined, requestedServiceTypeCodes: [] });

function withEntities(row: BenefitsInformation, ...entities: BenefitsRelatedEntity[]): BenefitsInformation {
  return { ...row, benefitsRelatedEntities: entities };
}

const payer = (code: string, name: string, id?: string): BenefitsRelatedEntity => ({
  entityIdentifierCode: code,
  entityName: name,
  entityType: 'Non-Person Entity',
  ...(id ? { entityIdentificationCode: 'PI', entityIdentificationValue: id } : {}),
});

describe('corpus 271s with EB*R rows', () => {
  test('CMS HETS (4010): MSP working aged, a Medicare Advantage HMO and a Part D plan, each PRIMARY by NM1*PRP', () => {
    const outcome = parse271(readFileSync(new URL('oopfactory/271_4010_CMS_HETS.txt', CORPUS), 'latin1'));
    assert.equal(outcome.kind, '271');
    if (outcome.kind !== '271') return;
    const result = interpretBenefits({
      benefitsInformation: outcome.result.benefitsInformation,
      planActive: outcome.result.planActive,
      requestedServiceTypeCodes: [],
    });
    assert.deepEqual(result.otherCoverage, [
      {
        payerName: 'ORGNAME',
        memberId: 'POLICYNUMBER',
        insuranceTypeCode: '12',
        insuranceType:
          'Medicare Secondary Working Aged Beneficiary or Spouse with Employer Group Health Plan',
        serviceTypeCodes: ['30'],
        order: 'PRIMARY',
        orderBasis: '2120C NM101 PRP (Primary Payer)',
        dates: { coordinationOfBenefits: '19900101' },
      },
      {
        payerName: 'ORGNAME',
        insuranceTypeCode: 'HM',
        insuranceType: 'Health Maintenance Organization (HMO)',
        serviceTypeCodes: ['30'],
        order: 'PRIMARY',
        orderBasis: '2120C NM101 PRP (Primary Payer)',
        dates: { coordinationOfBenefits: '20070701' },
      },
      {
        payerName: 'ORGNAME',
        insuranceTypeCode: 'OT',
        insuranceType: 'Other',
        serviceTypeCodes: ['88'],
        order: 'PRIMARY',
        orderBasis: '2120C NM101 PRP (Primary Payer)',
        dates: { benefit: '20090701' },
      },
    ]);
    const warning = result.warnings.find((w) => w.code === 'OTHER_COVERAGE');
    assert.equal(
      warning?.description,
      'The payer reports other coverage (EB*R): ORGNAME (primary); ORGNAME (primary); ORGNAME (primary); another payer pays first: bill it before this plan.',
    );
    // The entries are still built (golden cms_hets.json holds their values): EB*R rows feed no product.
    assert.equal(result.benefits.length, 7);
  });

  test('MunawarAbad HETS (4010): a pharmacy payer named NM1*PR is UNKNOWN; MSP 47 with NM1*PRP is PRIMARY', () => {
    const coverage = readOtherCoverage(corpusRows('oopfactory/271_4010_MunawarAbad.txt'));
    assert.deepEqual(
      coverage.map((c) => [c.insuranceTypeCode, c.order, c.memberId, c.serviceTypeCodes]),
      [
        ['OT', 'UNKNOWN', undefined, ['88']],
        ['47', 'PRIMARY', 'XX99999999XXX', ['30']],
      ],
    );
  });

  test('TMHP Medicaid (4010): the payer row and the insured row of one coverage are joined; a third is its own', () => {
    const coverage = readOtherCoverage(corpusRows('oopfactory/271_4010_TMHP.txt'));
    assert.deepEqual(coverage, [
      {
        payerName: 'INCOMPANYNAME',
        memberId: '123456789',
        groupNumber: 'G123456',
        insuranceTypeCode: 'OT',
        insuranceType: 'Other',
        planCoverage: 'CC',
        serviceTypeCodes: ['30'],
        order: 'UNKNOWN',
        orderBasis: 'the 271 does not say which pays first',
        dates: { periodStart: '20000501', periodEnd: '20000601' },
      },
      {
        memberId: '345678901',
        groupNumber: 'G345678',
        insuranceTypeCode: 'OT',
        insuranceType: 'Other',
        planCoverage: 'EE',
        serviceTypeCodes: ['30'],
        order: 'UNKNOWN',
        orderBasis: 'the 271 does not say which pays first',
        dates: { periodStart: '20000701', periodEnd: '20000801' },
      },
    ]);
  });

  test('DHHS Medicaid (4010): QMB, Medicare Part A and B (HIC number from REF*F6) and a policy, no order stated', () => {
    const coverage = readOtherCoverage(corpusRows('oopfactory/271_4010_DHHS.txt'));
    assert.deepEqual(
      coverage.map((c) => [c.insuranceTypeCode, c.memberId, c.order]),
      [
        ['QM', undefined, 'UNKNOWN'],
        ['MA', undefined, 'UNKNOWN'],
        ['MB', 'Medicare Claim No.', 'UNKNOWN'],
        ['OT', 'PolicyNo', 'UNKNOWN'],
      ],
    );
    // The policy holder's name (2120C NM1*IL without an id) is not copied into otherCoverage.
    assert.ok(!JSON.stringify(coverage).includes('Policyholder'));
  });

  test('tigershark commercial 109 EB: EB|R||30 naming MEDICARE, no insurance type: UNKNOWN', () => {
    const coverage = readOtherCoverage(corpusRows('tigershark/271_4010_commercial_109EB.txt'));
    assert.deepEqual(coverage, [
      {
        payerName: 'MEDICARE',
        serviceTypeCodes: ['30'],
        order: 'UNKNOWN',
        orderBasis: 'the 271 does not say which pays first',
      },
    ]);
  });

  test('Gainwell 5010 batch: the supplemental plan of transaction 137 (plan sponsor P5) is read', () => {
    const text = readFileSync(
      new URL('x12-parser-encoder/271_5010A1_gainwell_batch_153.edi', CORPUS),
      'latin1',
    );
    const found = parse271All(text).flatMap((o) =>
      o.kind === '271' ? readOtherCoverage(o.result.benefitsInformation) : [],
    );
    assert.deepEqual(found, [
      {
        payerName: 'SUPPLEMENTAL DESK 137',
        insuranceTypeCode: 'MC',
        insuranceType: 'Medicaid',
        planCoverage: 'SUPPLEMENTAL PLAN R',
        serviceTypeCodes: ['30', '35', '47'],
        order: 'UNKNOWN',
        orderBasis: 'the 271 does not say which pays first',
        dates: { plan: '20260422' },
      },
    ]);
  });

  test('a 271 without EB*R rows has no otherCoverage and no OTHER_COVERAGE warning', () => {
    const result = interpret(corpusRows('tigershark/271_5010_medica_hsd.txt'));
    assert.equal(result.otherCoverage, undefined);
    assert.ok(!result.warnings.some((w) => w.code === 'OTHER_COVERAGE'));
  });
});

describe('order rules, in order', () => {
  const order = (...rows: BenefitsInformation[]) => readOtherCoverage(rows).map((c) => c.order);

  test('1. 2120C NM101 PRP, SEP, TTP say the place outright, before any other rule', () => {
    assert.deepEqual(order(withEntities(eb('EB*R**30*C1'), payer('PRP', 'ACME'))), ['PRIMARY']);
    assert.deepEqual(order(withEntities(eb('EB*R**30*C1'), payer('SEP', 'ACME'))), ['SECONDARY']);
    assert.deepEqual(order(withEntities(eb('EB*R**30*C1'), payer('TTP', 'ACME'))), ['TERTIARY']);
    // An MSP type says PRIMARY, but the entity said SECONDARY first.
    assert.deepEqual(order(withEntities(eb('EB*R**30*12'), payer('SEP', 'ACME'))), ['SECONDARY']);
  });

  test('2. a Medicare Secondary Payer type (12-16, 41, 42, 43, 47) makes the other coverage PRIMARY', () => {
    for (const type of ['12', '13', '14', '15', '16', '41', '42', '43', '47']) {
      const [c] = readOtherCoverage([withEntities(eb(`EB*R*IND*30*${type}`), payer('PR', 'GHP'))]);
      assert.equal(c?.order, 'PRIMARY', type);
      assert.match(c!.orderBasis, new RegExp(`^EB04 ${type}: Medicare Secondary Payer`));
    }
  });

  test('3. MP (Medicare Primary) is PRIMARY; 4. SP, MH, MI (supplements) are SECONDARY', () => {
    assert.deepEqual(order(eb('EB*R**30*MP')), ['PRIMARY']);
    assert.deepEqual(order(eb('EB*R**30*SP'), eb('EB*R**30*MH'), eb('EB*R**30*MI')), [
      'SECONDARY',
      'SECONDARY',
      'SECONDARY',
    ]);
  });

  test('5. MSG text naming one place; "this plan is …" is read the other way round; "primary care" is not an order', () => {
    assert.deepEqual(order(eb('EB*R**30*C1', { msg: ['OTHER INSURANCE IS PRIMARY'] })), ['PRIMARY']);
    assert.deepEqual(order(eb('EB*R**30*C1', { msg: ['THIS PLAN IS PRIMARY'] })), ['SECONDARY']);
    assert.deepEqual(order(eb('EB*R**30*C1', { msg: ['This plan is secondary'] })), ['PRIMARY']);
    assert.deepEqual(order(eb('EB*R**30*C1', { msg: ['PRIMARY CARE PHYSICIAN REQUIRED'] })), ['UNKNOWN']);
    assert.deepEqual(order(eb('EB*R**30*C1', { msg: ['PRIMARY OR SECONDARY'] })), ['UNKNOWN']);
  });

  test('6. when this plan is Medicaid (an active row with EB04 MC), other coverage is PRIMARY, another Medicaid is not', () => {
    assert.deepEqual(order(eb('EB*1*IND*30*MC'), eb('EB*R**30*C1')), ['PRIMARY']);
    assert.deepEqual(order(eb('EB*1*IND*30*MC'), eb('EB*R**30*MC')), ['UNKNOWN']);
  });

  test('7. otherwise UNKNOWN: Medicare Part A or B, or a commercial plan, named without an order', () => {
    assert.deepEqual(order(eb('EB*R**30*MB'), eb('EB*R**30*MA'), eb('EB*R**30*C1')), [
      'UNKNOWN',
      'UNKNOWN',
      'UNKNOWN',
    ]);
  });
});

describe('fields', () => {
  test('payer id only with a payer-id qualifier; member id from NM1*IL (MI) before REF; never an SSN', () => {
    const row: BenefitsInformation = {
      ...eb('EB*R*IND*30*C1'),
      benefitsAdditionalInformation: {
        memberId: 'REF-ID',
        groupNumber: 'GRP1',
        socialSecurityNumber: '123456789',
      },
      benefitsRelatedEntities: [
        payer('PRP', 'ACME HEALTH', 'ACME1'),
        {
          entityIdentifierCode: 'IL',
          entityName: 'DOE',
          entityIdentificationCode: 'MI',
          entityIdentificationValue: 'NM1-ID',
        },
      ],
    };
    const [c] = readOtherCoverage([row]);
    assert.equal(c?.payerId, 'ACME1');
    assert.equal(c?.memberId, 'NM1-ID');
    assert.equal(c?.groupNumber, 'GRP1');
    assert.ok(!JSON.stringify(c).includes('123456789'));
    const ssnOnly = readOtherCoverage([
      withEntities(eb('EB*R**30*C1'), {
        entityIdentifierCode: 'IL',
        entityIdentificationCode: '34',
        entityIdentificationValue: '123456789',
      }),
    ]);
    assert.equal(ssnOnly[0]?.memberId, undefined);
    const npiPayer = readOtherCoverage([
      withEntities(eb('EB*R**30*C1'), {
        entityIdentifierCode: 'PR',
        entityName: 'X',
        entityIdentificationCode: 'XX',
        entityIdentificationValue: '1234567893',
      }),
    ]);
    assert.equal(npiPayer[0]?.payerId, undefined);
  });

  test('the same EB*R answered in two 271s (one inquiry per code, merged) is listed once', () => {
    const row = withEntities(eb('EB*R**30*C1'), payer('PRP', 'ACME'));
    assert.equal(readOtherCoverage([row, eb('EB*1*IND*30'), row]).length, 1);
  });

  test('an inactive plan still reports its other coverage, with the warning after PLAN_INACTIVE', () => {
    const result = interpretBenefits({
      benefitsInformation: [eb('EB*6*IND*30'), withEntities(eb('EB*R**30*C1'), payer('PRP', 'ACME'))],
      planActive: false,
      requestedServiceTypeCodes: [],
    });
    assert.deepEqual(
      result.warnings.map((w) => w.code),
      ['PLAN_INACTIVE', 'OTHER_COVERAGE'],
    );
    assert.equal(result.otherCoverage?.[0]?.payerName, 'ACME');
  });

  test('the warning names payers and codes, never a member id', () => {
    const row: BenefitsInformation = {
      ...withEntities(eb('EB*R**30*C1'), payer('PRP', 'ACME')),
      benefitsAdditionalInformation: { memberId: 'SECRET123' },
    };
    const result = interpret([eb('EB*1*IND*30'), row]);
    const warning = result.warnings.find((w) => w.code === 'OTHER_COVERAGE');
    assert.ok(warning && !warning.description.includes('SECRET123'));
  });
});
