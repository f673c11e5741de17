/**
 * Patient-responsibility estimates (docs/estimates.md): the charges a client asks about and the estimate a
 * completed check answers with. Additions to the spec: they never change one of its fields.
 */
import Type, { type Static } from 'typebox';
import { PRODUCT_SERVICE_TYPES } from './service-types.ts';

/** The most charges one request may carry. */
export const MAX_CHARGES = 20;
/** The largest allowed amount, in dollars: above it a typo is likelier than a visit. */
export const MAX_CHARGE_AMOUNT = 1_000_000;

export const Charge = Type.Object(
  {
    serviceType: Type.Optional(
      Type.Enum(PRODUCT_SERVICE_TYPES, {
        description:
          'The product service type the charge is for. Needed where two product types share an X12 code (`98`: Preventive and Medical Nutrition).',
      }),
    ),
    serviceTypeCode: Type.Optional(
      Type.String({
        pattern: '^[A-Z0-9]{1,2}$',
        description:
          'The X12 service type code of a product service type: `98`, `PT`, `MH`, `AD`, `AF` or `33`. One of `serviceType` and `serviceTypeCode` is required; with both, they must agree.',
      }),
    ),
    amount: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: MAX_CHARGE_AMOUNT,
        description:
          "The allowed amount in dollars, at most two decimals. Absent: the organization's fee schedule supplies it from `procedureCode`.",
      }),
    ),
    procedureCode: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9]{1,10}$',
        description: 'A CPT/HCPCS code (e.g. `97110`): with no `amount`, looked up in the fee schedule.',
      }),
    ),
  },
  {
    $id: 'Charge',
    additionalProperties: false,
    description:
      'One service to estimate: what it is and its allowed amount (or a procedure code to price it).',
  },
);
export type Charge = Static<typeof Charge>;

const CHARGES_ORDER = `1 to ${MAX_CHARGES} charges, applied in their order: what one pays toward the deductible and the out-of-pocket maximum is no longer remaining for the next.`;

/** A list of charges, described for where it appears. */
export const chargeList = (description = CHARGES_ORDER) =>
  Type.Array(Charge, { minItems: 1, maxItems: MAX_CHARGES, description });

export const Charges = chargeList();

export const EstimateRequest = Type.Object(
  { charges: Charges },
  { $id: 'EstimateRequest', additionalProperties: false },
);

export const EstimateStepKind = Type.Union(
  [
    Type.Literal('deductible'),
    Type.Literal('copay'),
    Type.Literal('coinsurance'),
    Type.Literal('notCovered'),
    Type.Literal('outOfPocketCap'),
  ],
  { $id: 'EstimateStepKind' },
);
export type EstimateStepKind = Static<typeof EstimateStepKind>;

export const EstimateStep = Type.Object(
  {
    kind: EstimateStepKind,
    amount: Type.Number({
      description:
        'Dollars this step adds to what the patient pays; an `outOfPocketCap` step is negative (what the cap takes off). The steps add up to `patientPays`.',
    }),
    basis: Type.String({ description: 'The arithmetic of the step, in words and figures.' }),
  },
  { $id: 'EstimateStep' },
);
export type EstimateStep = Static<typeof EstimateStep>;

const Dollars = (description: string) =>
  Type.Union([Type.Number({ minimum: 0 }), Type.Null()], { description });

export const Estimate = Type.Object(
  {
    serviceType: Type.Enum(PRODUCT_SERVICE_TYPES),
    serviceTypeCode: Type.String(),
    procedureCode: Type.Optional(Type.String()),
    amount: Type.Number({ description: 'The allowed amount, dollars.' }),
    amountSource: Type.Union([Type.Literal('request'), Type.Literal('feeSchedule')], {
      description: "`feeSchedule`: the amount came from the organization's fee schedule.",
    }),
    patientPays: Dollars(
      'Dollars the patient pays; null when the estimate cannot be computed (`reason` says why).',
    ),
    planPays: Dollars('Dollars the plan pays (`amount` − `patientPays`); null when not computed.'),
    steps: Type.Array(EstimateStep),
    assumptions: Type.Array(Type.String(), {
      description: 'Every input that was missing and what was assumed in its place.',
    }),
    confidence: Type.Number({
      minimum: 0,
      maximum: 1,
      description: "The benefit entry's confidence, lowered for each assumption; 0 when not computed.",
    }),
    reason: Type.Optional(
      Type.String({ description: 'Why the estimate cannot be computed (patientPays null).' }),
    ),
  },
  { $id: 'Estimate', description: 'What one charge comes to, with its arithmetic and what it assumed.' },
);
export type Estimate = Static<typeof Estimate>;

export const EstimateTotal = Type.Object(
  {
    patientPays: Type.Number({ minimum: 0 }),
    planPays: Type.Number({ minimum: 0 }),
    notComputed: Type.Integer({
      minimum: 0,
      description: 'Charges left out of the totals because their estimate cannot be computed.',
    }),
  },
  { $id: 'EstimateTotal' },
);
export type EstimateTotal = Static<typeof EstimateTotal>;

export const EstimateResult = Type.Object(
  { estimates: Type.Array(Estimate), estimateTotal: EstimateTotal },
  {
    $id: 'EstimateResult',
    description: 'An addition to the spec: what to collect at the desk for the charges asked about.',
  },
);
export type EstimateResult = Static<typeof EstimateResult>;

/**
 * A charge as stored with its check: its service type settled and its amount known (from the request or
 * the fee schedule). Not part of any request: the intake and the fee schedule make it.
 */
export interface PricedCharge {
  serviceType: (typeof PRODUCT_SERVICE_TYPES)[number];
  serviceTypeCode: string;
  procedureCode?: string;
  amount: number;
  amountSource: 'request' | 'feeSchedule';
}
