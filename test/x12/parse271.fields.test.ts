/**
 * Field-level expectations for corpus 271s, written by reading their segments (the segment each value comes
 * from is quoted beside it), not by running the parser.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parse271 } from '../../src/x12/parse271.ts';
import type { Eligibility271 } from '../../src/x12/types.ts';
import { CORPUS } from '../helpers/x12-corpus.ts';

function parsed(path: string, traceNumber?: string): Eligibility271 {
  const outcome = parse271(readFileSync(new URL(path, CORPUS), 'utf8'), { traceNumber });
  assert.equal(outcome.kind, '271');
  return (outcome as { result: Eligibility271 }).result;
}

describe('tigershark/271_5010_medica_hsd.txt (5010, | and } delimiters)', () => {
  const r = parsed('tigershark/271_5010_medica_hsd.txt');

  test('payer, provider and subscriber from 2100A/B/C', () => {
    // NM1|PR|2|MEDICA COM|||||PI|123456789
    assert.deepEqual(r.payer, {
      payerName: 'MEDICA COM',
      payerId: '123456789',
      entityIdentifier: 'Payer',
      entityType: 'Non-Person Entity',
    });
    // NM1|1P|1|James|Barraret|J.|||XX|1234567894
    assert.deepEqual(r.provider, {
      lastName: 'James',
      firstName: 'Barraret',
      npi: '1234567894',
      providerType: 'provider',
    });
    // NM1|IL|1|SMITH|JOHN||||MI|1234567899, REF|6P|030030001000120, N3, N4, DMG|D8|19430813|M
    assert.deepEqual(r.subscriber, {
      lastName: 'SMITH',
      firstName: 'JOHN',
      memberId: '1234567899',
      entityIdentifier: 'Insured or Subscriber',
      entityType: 'Person',
      dateOfBirth: '19430813',
      gender: 'M',
      address: { address1: '4040 VILLAGE AB', city: 'KANSAS CITY', state: 'MO', postalCode: '64108' },
      groupNumber: '030030001000120',
    });
  });

  test('plan: EB|1|EMP|30|EP|Open Access Elect Choice; dates DTP 346, 356, 472', () => {
    assert.equal(r.planActive, true);
    assert.equal(r.planCoverage, 'Open Access Elect Choice');
    assert.deepEqual(r.planInformation, {
      planName: 'Open Access Elect Choice',
      insuranceTypeCode: 'EP',
      insuranceType: 'Exclusive Provider Organization',
      groupNumber: '030030001000120',
      // REF|18|0404044 in 2100C
      planNumber: '0404044',
    });
    assert.deepEqual(r.planDateInformation, {
      eligibility: '20141208',
      plan: '20160201',
      service: '20160601',
    });
    assert.deepEqual(r.providerNetwork, { status: 'In Network' });
  });

  test('19 EB rows with MSG, HSD, LS/LE and repetitions split on }', () => {
    const b = r.benefitsInformation;
    assert.equal(b.length, 19);
    // EB|L|EMP|30|EP~ MSG|PCP SELECTION NOT REQUIRED
    assert.deepEqual(b[0], {
      code: 'L',
      name: 'Primary Care Provider',
      coverageLevelCode: 'EMP',
      coverageLevel: 'Employee Only',
      serviceTypeCodes: ['30'],
      serviceTypes: ['Health Benefit Plan Coverage'],
      insuranceTypeCode: 'EP',
      insuranceType: 'Exclusive Provider Organization',
      additionalInformation: [{ description: 'PCP SELECTION NOT REQUIRED' }],
    });
    // EB|W~ LS|2120~ NM1|PR|2|Mala Compania~ N3|PO Box 983322~ N4|El Fixato|TX|68887~ LE|2120
    assert.deepEqual(b[1], {
      code: 'W',
      name: 'Other Source of Data',
      benefitsRelatedEntities: [
        {
          entityIdentifierCode: 'PR',
          entityIdentifier: 'Payer',
          entityType: 'Non-Person Entity',
          entityName: 'Mala Compania',
          address: { address1: 'PO Box 983322', city: 'El Fixato', state: 'TX', postalCode: '68887' },
        },
      ],
    });
    // EB|G|IND|30|||29|2100|||||Y
    assert.equal(b[4]!.code, 'G');
    assert.equal(b[4]!.timeQualifierCode, '29');
    assert.equal(b[4]!.timeQualifier, 'Remaining');
    assert.equal(b[4]!.benefitAmount, '2100');
    assert.equal(b[4]!.inPlanNetworkIndicatorCode, 'Y');
    // EB|1|EMP|1}33}47}48}50}86}98}UC}AL}MH}88||Open Access Elect Choice
    assert.deepEqual(b[8]!.serviceTypeCodes, [
      '1',
      '33',
      '47',
      '48',
      '50',
      '86',
      '98',
      'UC',
      'AL',
      'MH',
      '88',
    ]);
    assert.equal(b[8]!.serviceTypes![1], 'Chiropractic');
    // EB|A|EMP|98|||||.1||||Y
    assert.equal(b[11]!.benefitPercent, '.1');
    // EB|F|IND|33|||||||||Y~ HSD|VS|35|||21|1
    assert.deepEqual(b[13]!.benefitsServiceDelivery, [
      {
        quantityQualifierCode: 'VS',
        quantityQualifier: 'Visits',
        quantity: '35',
        timePeriodQualifierCode: '21',
        timePeriodQualifier: 'Years',
        numOfPeriods: '1',
      },
    ]);
    // HSD|VS|35|||29
    assert.equal(b[14]!.benefitsServiceDelivery![0]!.timePeriodQualifierCode, '29');
  });

  test('trace numbers from 2000C; the wrong SE01 is an issue, not a client warning', () => {
    // TRN|2|434343434|9ZIRMEDCOM|ELR ID~ TRN|1|422422424|9ZIRMEDCOM|ELI ID
    assert.deepEqual(r.subscriberTraceNumbers, [
      {
        traceTypeCode: '2',
        traceType: 'Referenced Transaction Trace Numbers',
        referenceIdentification: '434343434',
        originatingCompanyIdentifier: '9ZIRMEDCOM',
        originatingTransactionTraceNumber: '434343434',
      },
      {
        traceTypeCode: '1',
        traceType: 'Current Transaction Trace Numbers',
        referenceIdentification: '422422424',
        originatingCompanyIdentifier: '9ZIRMEDCOM',
        payerTraceNumber: '422422424',
      },
    ]);
    // SE|74|0001 is the 75th segment; ST..SE counts 73.
    assert.deepEqual(
      r.issues.map((i) => [i.code, i.severity, i.position]),
      [['X12_SE01_MISMATCH', 'warning', 75]],
    );
    assert.deepEqual(r.warnings, []);
    assert.deepEqual(r.errors, []);
  });
});

describe('oopfactory/271_4010_CMS_HETS.txt (4010, component separator |)', () => {
  const r = parsed('oopfactory/271_4010_CMS_HETS.txt');

  test('subscriber, facility provider and plan from EB*1*IND**MA', () => {
    // NM1*IL*1*LNAME*FNAME*MNAME***MI*HICN, DMG*D8*19200401*F
    assert.equal(r.subscriber.memberId, 'HICN');
    assert.equal(r.subscriber.middleName, 'MNAME');
    assert.equal(r.subscriber.dateOfBirth, '19200401');
    assert.equal(r.subscriber.gender, 'F');
    // NM1*1P*2*IRNAME*****XX*NPI
    assert.deepEqual(r.provider, { organizationName: 'IRNAME', npi: 'NPI', providerType: 'facility' });
    assert.deepEqual(r.planInformation, { insuranceTypeCode: 'MA', insuranceType: 'Medicare Part A' });
    assert.deepEqual(r.planDateInformation, { service: '20090501' });
  });

  test('EB*1 (dated 1985) and a trailing EB*6 (dated 2007-09) at plan level: active, with a warning', () => {
    assert.equal(r.planActive, true);
    assert.deepEqual(
      r.warnings.map((w) => w.code),
      ['X12_CONFLICTING_PLAN_STATUS'],
    );
  });

  test('EB13 HC|90669 split on the ISA16 component separator; DTP, REF and LS children', () => {
    const b = r.benefitsInformation;
    assert.equal(b.length, 26);
    // EB*1*IND**MA~ DTP*307*D8*19850401
    assert.deepEqual(b[0]!.benefitsDateInformation, { eligibility: '19850401' });
    assert.equal(b[0]!.serviceTypeCodes, undefined);
    // EB*D*IND**MB*********HC|90669~ DTP*348*D8*20090406
    const d = b.find((x) => x.code === 'D')!;
    assert.deepEqual(d.compositeMedicalProcedureIdentifier, {
      productOrServiceIdQualifierCode: 'HC',
      productOrServiceIdQualifier:
        'Health Care Financing Administration Common Procedural Coding System (HCPCS) Codes',
      procedureCode: '90669',
    });
    assert.deepEqual(d.benefitsDateInformation, { benefitBegin: '20090406' });
    // EB*R*IND*30*12~ REF*IG*POLICYNUMBER~ DTP*290*D8*19900101~ LS~ NM1*PRP*2*ORGNAME~ N3~ N4~ LE
    const r12 = b.find((x) => x.code === 'R' && x.insuranceTypeCode === '12')!;
    assert.deepEqual(r12.benefitsAdditionalInformation, { insurancePolicyNumber: 'POLICYNUMBER' });
    assert.deepEqual(r12.benefitsDateInformation, { coordinationOfBenefits: '19900101' });
    assert.equal(r12.benefitsRelatedEntities![0]!.entityIdentifierCode, 'PRP');
    assert.equal(r12.benefitsRelatedEntities![0]!.entityIdentifier, 'Primary Payer');
    assert.deepEqual(r12.benefitsRelatedEntities![0]!.address, {
      address1: 'ADDRESSLINE1',
      address2: 'ADDRESSLINE2',
      city: 'CITY',
      state: 'SC',
      postalCode: 'ZIPCODE',
    });
    // EB*F*IND*67*MB**29***P6*8
    const p6 = b.find((x) => x.quantityQualifierCode === 'P6')!;
    assert.deepEqual(
      [p6.serviceTypeCodes, p6.benefitQuantity, p6.quantityQualifier],
      [['67'], '8', 'Number of Services or Procedures'],
    );
  });
});

describe('linuxforhealth-x12/271_5010A1_dependent.271 (benefits and TRN on the dependent)', () => {
  test('with the inquiry trace the dependent is the patient; her DTP*346 dates the plan', () => {
    const r = parsed('linuxforhealth-x12/271_5010A1_dependent.271', '93175-012547');
    // NM1*03*1*SMITH*MARY, N3, N4, DMG*D8*19981014*F, INS*N*19
    assert.deepEqual(r.dependents, [
      {
        lastName: 'SMITH',
        firstName: 'MARY',
        entityIdentifier: 'Dependent',
        entityType: 'Person',
        dateOfBirth: '19981014',
        gender: 'F',
        address: {
          address1: '15197 BROADWAY AVENUE',
          address2: 'APT 215',
          city: 'KANSAS CITY',
          state: 'MO',
          postalCode: '64108',
        },
        relationToSubscriberCode: '19',
        relationToSubscriber: 'Child',
      },
    ]);
    assert.equal(r.subscriber.firstName, 'JOHN');
    assert.equal(r.subscriber.memberId, '123456789');
    assert.equal(r.benefitsInformation.length, 5);
    assert.deepEqual(r.planInformation, { planName: 'GOLD 123 PLAN' });
    assert.deepEqual(r.planDateInformation, { plan: '20060101' });
    // TRN*2*93175-012547*9877281234 is in 2000D
    assert.ok(r.subscriberTraceNumbers.some((x) => x.referenceIdentification === '93175-012547'));
    assert.ok(!r.warnings.some((w) => w.code === 'X12_BENEFITS_ON_DEPENDENT'));
    // EB*B**1^33^...*HM*GOLD 123 PLAN*27*30.00*****N
    const outOfNetwork = r.benefitsInformation[4]!;
    assert.deepEqual(
      [
        outOfNetwork.code,
        outOfNetwork.benefitAmount,
        outOfNetwork.inPlanNetworkIndicatorCode,
        outOfNetwork.serviceTypeCodes!.length,
      ],
      ['B', '30.00', 'N', 10],
    );
    // EB*L~ LS~ NM1*P3*1*JONES*MARCUS****SV*0202034~ LE
    assert.deepEqual(r.benefitsInformation[1]!.benefitsRelatedEntities, [
      {
        entityIdentifierCode: 'P3',
        entityIdentifier: 'Primary Care Provider',
        entityType: 'Person',
        entityName: 'JONES',
        entityFirstname: 'MARCUS',
        entityIdentificationCode: 'SV',
        entityIdentificationValue: '0202034',
      },
    ]);
  });

  test('without the trace the benefits are still the dependent’s, with a warning', () => {
    const r = parsed('linuxforhealth-x12/271_5010A1_dependent.271');
    assert.equal(r.benefitsInformation.length, 5);
    assert.deepEqual(
      r.warnings.map((w) => w.code),
      ['X12_BENEFITS_ON_DEPENDENT'],
    );
  });
});

describe('AAA rejections', () => {
  test('tigershark/271_4010_dependent_rejection.txt: AAA|Y||72|N in 2100C', () => {
    const r = parsed('tigershark/271_4010_dependent_rejection.txt');
    assert.deepEqual(r.errors, [
      {
        code: '72',
        description: 'Invalid/Missing subscriber/insured ID',
        field: 'AAA',
        followupAction: 'Please Correct and Resubmit',
        location: 'Loop 2100C',
      },
    ]);
    assert.deepEqual(r.rejections, [
      { loop: '2100C', validRequest: 'Y', code: '72', followUpCode: 'N', position: 15 },
    ]);
    assert.equal(r.subscriber.memberId, 'R11111111');
    assert.equal(r.subscriber.lastName, undefined);
    // NM1|03|1|DOE|JANE~ DMG|D8|19810810 (no gender)
    assert.deepEqual(r.dependents, [
      {
        lastName: 'DOE',
        firstName: 'JANE',
        entityIdentifier: 'Dependent',
        entityType: 'Person',
        dateOfBirth: '19810810',
      },
    ]);
    assert.equal(r.planActive, undefined);
    // PER|IC|BLUECARD ELIGIBILITY|TE|8006762583 in 2100A does not leak into the payer object.
    assert.deepEqual(r.payer, {
      payerName: 'ANTHEM BLUE CROSS',
      payerId: '10319',
      entityIdentifier: 'Payer',
      entityType: 'Non-Person Entity',
    });
  });

  test('oopfactory/271_5010_IG_3_1_2_all_AAA_levels.txt: source, receiver, subscriber and 2110 levels', () => {
    const r = parsed('oopfactory/271_5010_IG_3_1_2_all_AAA_levels.txt');
    const byLoop = r.rejections.map((x) => `${x.code}@${x.loop}`);
    for (const expected of ['80@2100A', '79@2100A', '41@2100B', '42@2100C', '51@2110C', '60@2110C'])
      assert.ok(byLoop.includes(expected), expected);
    // Errors hold the 2100A/B/C rejections, not the benefit-line ones.
    assert.ok(r.errors.every((e) => e.location !== 'Loop 2110C'));
    assert.ok(
      r.errors.some(
        (e) =>
          e.code === '42' &&
          e.location === 'Loop 2100C' &&
          e.description === 'Unable to respond at current time',
      ),
    );
    assert.equal(r.warnings.filter((w) => w.code === 'X12_BENEFIT_AAA').length, 2);
  });

  test('cosyte-x12/271_5010A1_aaa_two_dependents.edi: each dependent’s AAA stays with its own subscriber', () => {
    const r = parsed('cosyte-x12/271_5010A1_aaa_two_dependents.edi');
    assert.equal(r.subscriber.lastName, 'DOE');
    assert.equal(r.dependents.length, 1);
    assert.equal(r.dependents[0]!.firstName, 'BABY');
    // HL*4*3*23*0~ NM1*QC*1*DOE*BABY*A~ AAA*N**72*C; the ROE family's AAA 73 is not attached here.
    assert.deepEqual(
      r.dependents[0]!.aaaErrors?.map((e) => [e.code, e.location]),
      [['72', 'Loop 2100D']],
    );
    assert.deepEqual(r.errors, []);
    assert.ok(r.warnings.some((w) => w.code === 'X12_MULTIPLE_SUBSCRIBERS'));
  });

  test('oopfactory/271_4010_DHHS.txt: the non-standard AAA*N**RC*C is kept as sent at each level', () => {
    const r = parsed('oopfactory/271_4010_DHHS.txt');
    assert.deepEqual(
      r.errors.map((e) => [e.code, e.location, e.description, e.followupAction]),
      [
        ['RC', 'Loop 2100A', 'Reject reason RC', 'Please Correct and Resubmit'],
        ['RC', 'Loop 2100B', 'Reject reason RC', 'Please Correct and Resubmit'],
        ['RC', 'Loop 2100C', 'Reject reason RC', 'Please Correct and Resubmit'],
      ],
    );
    // EB*6~ and EB*1****PCAT: payment category description~ both at plan level: only the EB*1 names a plan.
    assert.equal(r.planActive, true);
    assert.equal(r.planCoverage, 'PCAT: payment category description');
  });
});

describe('cosyte-x12/271_5010A1_canonical.edi (no newlines)', () => {
  test('every field of the smallest complete 271', () => {
    const r = parsed('cosyte-x12/271_5010A1_canonical.edi', 'ECHO-270-TRACE-001');
    assert.deepEqual(r.planDateInformation, { plan: '20260601' });
    assert.deepEqual(r.planInformation, { planName: 'GOLD PPO' });
    // EB*C*IND*30**GOLD PPO*29*1000
    assert.deepEqual(r.benefitsInformation[2], {
      code: 'C',
      name: 'Deductible',
      coverageLevelCode: 'IND',
      coverageLevel: 'Individual',
      serviceTypeCodes: ['30'],
      serviceTypes: ['Health Benefit Plan Coverage'],
      planCoverage: 'GOLD PPO',
      timeQualifierCode: '29',
      timeQualifier: 'Remaining',
      benefitAmount: '1000',
    });
    assert.deepEqual(r.benefitsInformation[0]!.serviceTypeCodes, ['30', '35']);
    assert.deepEqual(r.issues, []);
  });
});
