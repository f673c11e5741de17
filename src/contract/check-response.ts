/**
 * The eligibility check resource of the API contract (docs/contract.md, "The check").
 * One schema is the validator, the TypeScript type and the OpenAPI description: never hand-write a type
 * that one of these defines.
 */
import Type, { type Static } from 'typebox';
import { Estimate, EstimateTotal } from './estimate.ts';
import { PRODUCT_SERVICE_TYPES } from './service-types.ts';

const Str = (description?: string) => Type.String(description ? { description } : {});
const OptStr = (description?: string) => Type.Optional(Str(description));

export const Address = Type.Object(
  {
    address1: OptStr(),
    address2: OptStr(),
    city: OptStr(),
    state: OptStr('Two-letter state code.'),
    postalCode: OptStr(),
    countryCode: OptStr(),
    countrySubDivisionCode: OptStr(),
  },
  { $id: 'Address' },
);

export const Provider = Type.Object(
  {
    organizationName: OptStr(),
    firstName: OptStr(),
    lastName: OptStr(),
    npi: OptStr('10-digit national provider identifier.'),
    address: Type.Optional(Address),
    providerType: Type.Optional(Type.Union([Type.Literal('provider'), Type.Literal('facility')])),
  },
  { $id: 'Provider' },
);

export const Payer = Type.Object(
  {
    payerName: OptStr(),
    payerId: OptStr(),
    entityIdentifier: OptStr(),
    entityType: OptStr(),
  },
  { $id: 'Payer' },
);

export const EligibilityCheckError = Type.Object(
  {
    code: Str('An AAA03 reject reason (e.g. 72) or a service code (SH01, SH02).'),
    description: Str(),
    field: OptStr('`AAA` for payer rejections; `SERVICE` for errors raised by this service.'),
    followupAction: OptStr(),
    location: OptStr('The X12 loop the error was found in, e.g. `Loop 2100C`.'),
    possibleResolutions: OptStr(),
  },
  { $id: 'EligibilityCheckError' },
);

export const ResponseSubscriber = Type.Object(
  {
    memberId: OptStr(),
    firstName: OptStr(),
    lastName: OptStr(),
    middleName: OptStr(),
    dateOfBirth: OptStr('YYYYMMDD'),
    gender: Type.Optional(Type.Union([Type.Literal('M'), Type.Literal('F'), Type.Literal('U')])),
    groupNumber: OptStr(),
    entityIdentifier: OptStr(),
    entityType: OptStr(),
    address: Type.Optional(Address),
  },
  { $id: 'ResponseSubscriber' },
);

export const ResponseDependent = Type.Object(
  {
    firstName: OptStr(),
    lastName: OptStr(),
    middleName: OptStr(),
    dateOfBirth: OptStr('YYYYMMDD'),
    gender: OptStr(),
    entityIdentifier: OptStr(),
    entityType: OptStr(),
    address: Type.Optional(Address),
    aaaErrors: Type.Optional(Type.Array(EligibilityCheckError)),
    relationToSubscriber: OptStr('INS02 in words, e.g. `Child`, `Spouse`.'),
    relationToSubscriberCode: OptStr('INS02: `01` spouse, `19` child, `G8` other relationship, ...'),
  },
  { $id: 'ResponseDependent' },
);

export const PlanInformation = Type.Object(
  {
    planName: OptStr(),
    insuranceType: OptStr(),
    insuranceTypeCode: OptStr(),
    groupNumber: OptStr(),
    planNumber: OptStr('REF*18 of the patient (2100D when a dependent), else of the subscriber.'),
  },
  { $id: 'PlanInformation' },
);

export const PlanDateInformation = Type.Object(
  {
    eligibility: OptStr('YYYYMMDD or YYYYMMDD-YYYYMMDD'),
    plan: OptStr('YYYYMMDD or YYYYMMDD-YYYYMMDD'),
    service: OptStr(),
    status: OptStr(),
  },
  { $id: 'PlanDateInformation' },
);

export const ProviderNetwork = Type.Object(
  {
    status: Type.Optional(Type.Union([Type.Literal('In Network'), Type.Literal('Out of Network')])),
    tier: OptStr(),
    specialty: OptStr(),
  },
  { $id: 'ProviderNetwork' },
);

export { PRODUCT_SERVICE_TYPES, type ProductServiceType } from './service-types.ts';

const NullableNumber = (description?: string) =>
  Type.Optional(Type.Union([Type.Number(), Type.Null()], description ? { description } : {}));
const NullableBoolean = (description?: string) =>
  Type.Optional(Type.Union([Type.Boolean(), Type.Null()], description ? { description } : {}));

export const BenefitConfidence = Type.Object(
  {
    score: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()]),
    criteria: Type.Array(Type.String(), { description: 'Human-readable reasons for the score.' }),
  },
  { $id: 'BenefitConfidence' },
);

export const BenefitEntry = Type.Object(
  {
    serviceType: Type.Enum(PRODUCT_SERVICE_TYPES),
    coverageStatus: Type.Optional(
      Type.Union([Type.Literal('Active Coverage'), Type.Literal('Not Covered'), Type.Literal('Not Found')]),
    ),
    inNetwork: NullableBoolean(),
    copay: NullableNumber('Dollars.'),
    coinsurance: NullableNumber('Fraction from 0 to 1.'),
    deductible: NullableNumber(),
    deductibleRemaining: NullableNumber(),
    familyDeductible: NullableNumber(),
    familyDeductibleRemaining: NullableNumber(),
    deductibleApplies: NullableBoolean(),
    outOfPocketMax: NullableNumber(),
    outOfPocketRemaining: NullableNumber(),
    familyOutOfPocketMax: NullableNumber(),
    familyOutOfPocketRemaining: NullableNumber(),
    visitLimit: NullableNumber(),
    visitsUsed: NullableNumber(),
    authorizationRequired: NullableBoolean(),
    confidence: Type.Optional(BenefitConfidence),
  },
  { $id: 'BenefitEntry' },
);

export const AdditionalInformation = Type.Object(
  { code: OptStr(), description: OptStr() },
  { $id: 'AdditionalInformation' },
);

export const BenefitsServiceDelivery = Type.Object(
  {
    quantityQualifierCode: OptStr(),
    quantityQualifier: OptStr(),
    quantity: OptStr(),
    unitForMeasurementCode: OptStr(),
    unitForMeasurement: OptStr(),
    sampleSelectionModulus: OptStr(),
    timePeriodQualifierCode: OptStr(),
    timePeriodQualifier: OptStr(),
    numOfPeriods: OptStr(),
    deliveryFrequencyCode: OptStr(),
    deliveryFrequency: OptStr(),
    deliveryPatternTimeCode: OptStr(),
    deliveryPatternTime: OptStr(),
  },
  { $id: 'BenefitsServiceDelivery' },
);

export const BenefitsRelatedEntity = Type.Object(
  {
    entityIdentifierCode: OptStr(),
    entityIdentifier: OptStr(),
    entityType: OptStr(),
    entityName: OptStr(),
    entityFirstname: OptStr(),
    entityMiddlename: OptStr(),
    entityIdentificationCode: OptStr(),
    entityIdentification: OptStr(),
    entityIdentificationValue: OptStr(),
    address: Type.Optional(Address),
    contactInformation: Type.Optional(
      Type.Array(Type.Object({ communicationMode: OptStr(), communicationNumber: OptStr(), name: OptStr() })),
    ),
  },
  { $id: 'BenefitsRelatedEntity' },
);

export const BenefitsInformation = Type.Object(
  {
    code: OptStr('EB01'),
    name: OptStr(),
    coverageLevelCode: OptStr('EB02'),
    coverageLevel: OptStr(),
    serviceTypeCodes: Type.Optional(Type.Array(Type.String(), { description: 'EB03 repetitions' })),
    serviceTypes: Type.Optional(Type.Array(Type.String())),
    insuranceTypeCode: OptStr('EB04'),
    insuranceType: OptStr(),
    planCoverage: OptStr('EB05'),
    timeQualifierCode: OptStr('EB06'),
    timeQualifier: OptStr(),
    benefitAmount: OptStr('EB07, dollars as sent'),
    benefitPercent: OptStr('EB08, a fraction as sent (e.g. 0.2)'),
    quantityQualifierCode: OptStr('EB09'),
    quantityQualifier: OptStr(),
    benefitQuantity: OptStr('EB10'),
    authOrCertIndicator: OptStr('EB11: Y, N or U'),
    inPlanNetworkIndicatorCode: OptStr('EB12'),
    inPlanNetworkIndicator: OptStr(),
    compositeMedicalProcedureIdentifier: Type.Optional(
      Type.Object({
        productOrServiceIdQualifierCode: OptStr(),
        productOrServiceIdQualifier: OptStr(),
        procedureCode: OptStr(),
        procedureModifiers: Type.Optional(Type.Array(Type.String())),
      }),
    ),
    additionalInformation: Type.Optional(Type.Array(AdditionalInformation, { description: 'MSG text' })),
    benefitsDateInformation: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: 'DTP dates by qualifier name' }),
    ),
    benefitsServiceDelivery: Type.Optional(Type.Array(BenefitsServiceDelivery, { description: 'HSD' })),
    benefitsRelatedEntities: Type.Optional(Type.Array(BenefitsRelatedEntity, { description: 'LS/LE 2120' })),
    benefitsAdditionalInformation: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: 'REF identifiers by qualifier name' }),
    ),
  },
  { $id: 'BenefitsInformation' },
);

export const Warning = Type.Object(
  { code: Str('One of the codes listed in docs/warnings.md.'), description: Str() },
  { $id: 'Warning' },
);

export const EligibilityMeta = Type.Object(
  {
    applicationMode: OptStr('`sandbox` or `production`'),
    billerId: OptStr(),
    outboundTraceId: OptStr(),
    senderId: OptStr(),
    submitterId: OptStr(),
    traceId: OptStr(),
    connection: OptStr(
      'An addition to the spec: the payer connection (PAYERS_FILE `connections`) that answered, e.g. `stedi`; after a failover, the one that took over.',
    ),
    reusedFrom: Type.Optional(
      Type.Object(
        {
          id: Str('The earlier check whose result this check repeats.'),
          finishedAt: Str('When that check finished (ISO 8601, UTC).'),
        },
        {
          $id: 'ReusedFrom',
          description:
            'An addition to the spec, present only on a check answered from an earlier one (`reuseWithinHours`): no payer call was made.',
        },
      ),
    ),
  },
  { $id: 'EligibilityMeta' },
);

export const SubscriberTraceNumber = Type.Object(
  {
    traceTypeCode: OptStr(),
    traceType: OptStr(),
    referenceIdentification: OptStr(),
    originatingCompanyIdentifier: OptStr(),
    originatingTransactionTraceNumber: OptStr(),
    payerTraceNumber: OptStr(),
  },
  { $id: 'SubscriberTraceNumber' },
);

export const CheckStatus = Type.Union(
  [Type.Literal('IN_PROGRESS'), Type.Literal('COMPLETED'), Type.Literal('FAILED')],
  { $id: 'CheckStatus' },
);
export type CheckStatus = Static<typeof CheckStatus>;

export const CheckConfidence = Type.Object(
  {
    score: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()]),
    criteria: Type.Record(Type.String(), Type.Boolean()),
  },
  { $id: 'CheckConfidence' },
);

export const VerdictStatus = Type.Union(
  [Type.Literal('ACTIVE'), Type.Literal('INACTIVE'), Type.Literal('UNDETERMINED'), Type.Literal('FAILED')],
  { $id: 'VerdictStatus' },
);

export const Verdict = Type.Object(
  {
    status: VerdictStatus,
    summary: Str(
      'One line a person can act on, e.g. "Coverage active: Sandbox PPO Gold, in network" or "Could not check: Payer not supported".',
    ),
    reason: OptStr('For FAILED, the code of the first error (an AAA03 reason or SH01-SH04).'),
    since: OptStr('For INACTIVE, the date (YYYYMMDD) the coverage ended, when the payer said.'),
  },
  {
    $id: 'Verdict',
    description:
      'An addition to the spec: what a finished check means for the visit. Present on COMPLETED and FAILED checks.',
  },
);

export const RequestCorrection = Type.Object(
  {
    field: Str('JSON path of the corrected request field, e.g. `subscriber.lastName`.'),
    code: Str(
      'What kind of repair: `NAME_DIACRITICS_FOLDED`, `NAME_PUNCTUATION_REMOVED`, `NAME_SPACES_REMOVED`, `NAME_SUFFIX_MOVED`, `MEMBER_ID_SEPARATORS_REMOVED`, `MEMBER_ID_UPPERCASED`, `DATE_REFORMATTED` or `TRIMMED_TO_MAX_LENGTH` (docs/errors.md).',
    ),
    description: Str('What was done, in words; never the value.'),
  },
  {
    $id: 'RequestCorrection',
    description:
      'An addition to the spec: one repair the service made to the request before sending it (docs/errors.md "Request repair").',
  },
);

export const CoverageOrder = Type.Union(
  [Type.Literal('PRIMARY'), Type.Literal('SECONDARY'), Type.Literal('TERTIARY'), Type.Literal('UNKNOWN')],
  {
    $id: 'CoverageOrder',
    description:
      "The other payer's place in the order of payment: PRIMARY pays before this plan, SECONDARY and TERTIARY after it, UNKNOWN when the 271 does not say (docs/benefit-rules.md section 8).",
  },
);

export const OtherCoverage = Type.Object(
  {
    payerName: OptStr('The other payer or plan, from the 2120C NM1 (PR, PRP, SEP, TTP, P5, GW…).'),
    payerId: OptStr('Its id (2120C NM109 with NM108 PI, XV, NI, FI, 24 or 46).'),
    memberId: OptStr(
      "The member's id with the other payer: 2120C NM1*IL NM109 (MI), else REF 1W, IG, F6 or NQ of the EB*R row.",
    ),
    groupNumber: OptStr('REF 6P, else 1L, of the EB*R row.'),
    insuranceTypeCode: OptStr(
      'EB04 of the EB*R row, e.g. C1 commercial, 12 Medicare Secondary Working Aged.',
    ),
    insuranceType: OptStr(),
    planCoverage: OptStr('EB05 of the EB*R row: the payer’s description of the other coverage.'),
    serviceTypeCodes: Type.Optional(
      Type.Array(Type.String(), {
        description: 'EB03 of the EB*R row: what the other coverage is for (30 the plan, 88 pharmacy).',
      }),
    ),
    order: CoverageOrder,
    orderBasis: Str('Which rule decided `order`, in words (docs/benefit-rules.md section 8).'),
    dates: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description:
          'The EB*R row’s DTP dates by qualifier name, as in benefitsDateInformation (e.g. coordinationOfBenefits, plan).',
      }),
    ),
  },
  {
    $id: 'OtherCoverage',
    description:
      'An addition to the spec: coverage with another payer that the 271 reports (an EB*R row with its 2120C entities).',
  },
);

export const EligibilityCheckResponse = Type.Object(
  {
    id: Str(),
    status: CheckStatus,
    verdict: Type.Optional(Verdict),
    provider: Type.Optional(Provider),
    payer: Type.Optional(Payer),
    subscriber: Type.Optional(ResponseSubscriber),
    dependents: Type.Optional(Type.Array(ResponseDependent)),
    tradingPartnerServiceId: OptStr(),
    planInformation: Type.Optional(PlanInformation),
    planDateInformation: Type.Optional(PlanDateInformation),
    planActive: Type.Optional(Type.Boolean()),
    planCoverage: OptStr(),
    providerNetwork: Type.Optional(ProviderNetwork),
    benefits: Type.Optional(Type.Array(BenefitEntry)),
    otherCoverage: Type.Optional(
      Type.Array(OtherCoverage, {
        description:
          'An addition to the spec: the other coverage the payer reports (coordination of benefits), in the 271’s order. Present only when it reports some.',
      }),
    ),
    additionalNotes: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    errors: Type.Optional(Type.Array(EligibilityCheckError)),
    warnings: Type.Optional(Type.Array(Warning)),
    benefitsInformation: Type.Optional(Type.Array(BenefitsInformation)),
    confidence: Type.Optional(CheckConfidence),
    meta: Type.Optional(EligibilityMeta),
    subscriberTraceNumbers: Type.Optional(Type.Array(SubscriberTraceNumber)),
    x12: OptStr('Raw X12 271 text.'),
    requestCorrections: Type.Optional(
      Type.Array(RequestCorrection, {
        description:
          'An addition to the spec: the repairs made to the request at submission (what the payer was sent differs from what the client wrote). Present only when there were any.',
      }),
    ),
    estimates: Type.Optional(
      Type.Array(Estimate, {
        description:
          'An addition to the spec, present on a COMPLETED check submitted with `encounter.charges`: what the patient pays for each charge, with its steps and assumptions (docs/estimates.md).',
      }),
    ),
    estimateTotal: Type.Optional(EstimateTotal),
  },
  { $id: 'EligibilityCheckResponse' },
);

/** The 202 of `POST /api/eligibility`: the check is stored and runs asynchronously. */
export const EligibilityCheckAccepted = Type.Object(
  {
    id: Type.String({ description: 'Check id (UUIDv7); poll `GET /api/eligibility/{id}/status`.' }),
    status: Type.Literal('IN_PROGRESS'),
    requestCorrections: Type.Optional(
      Type.Array(RequestCorrection, {
        description:
          'An addition to the spec, present only when the request was repaired: what was changed before the check was stored. The finished check repeats it.',
      }),
    ),
  },
  { $id: 'EligibilityCheckAccepted' },
);

export type Address = Static<typeof Address>;
export type Provider = Static<typeof Provider>;
export type Payer = Static<typeof Payer>;
export type EligibilityCheckError = Static<typeof EligibilityCheckError>;
export type ResponseSubscriber = Static<typeof ResponseSubscriber>;
export type ResponseDependent = Static<typeof ResponseDependent>;
export type PlanInformation = Static<typeof PlanInformation>;
export type PlanDateInformation = Static<typeof PlanDateInformation>;
export type ProviderNetwork = Static<typeof ProviderNetwork>;
export type BenefitEntry = Static<typeof BenefitEntry>;
export type BenefitConfidence = Static<typeof BenefitConfidence>;
export type BenefitsInformation = Static<typeof BenefitsInformation>;
export type Warning = Static<typeof Warning>;
export type EligibilityMeta = Static<typeof EligibilityMeta>;
export type SubscriberTraceNumber = Static<typeof SubscriberTraceNumber>;
export type CheckConfidence = Static<typeof CheckConfidence>;
export type VerdictStatus = Static<typeof VerdictStatus>;
export type Verdict = Static<typeof Verdict>;
export type RequestCorrection = Static<typeof RequestCorrection>;
export type OtherCoverage = Static<typeof OtherCoverage>;
export type BenefitsRelatedEntity = Static<typeof BenefitsRelatedEntity>;
export type EligibilityCheckResponse = Static<typeof EligibilityCheckResponse>;
export type EligibilityCheckAccepted = Static<typeof EligibilityCheckAccepted>;
