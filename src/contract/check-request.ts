/**
 * The submit request of the API contract (docs/contract.md, "The submit request"): one TypeBox schema is the
 * validator, the TypeScript type and the OpenAPI description. The rules JSON Schema cannot say (NPI check
 * digit, real dates, known service type codes) are checked in checks/request.ts.
 */
import Type, { type Static } from 'typebox';
import { chargeList } from './estimate.ts';

/** The longest reuse window a submit may ask for: a week (docs/history.md says why). */
export const MAX_REUSE_WITHIN_HOURS = 168;

const Date8 = (description: string) => Type.String({ pattern: '^[0-9]{8}$', description });

export const EligibilityCheckRequest = Type.Object(
  {
    tradingPartnerServiceId: Type.String({
      minLength: 1,
      maxLength: 50,
      pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
      description: 'Payer identifier from the payer directory; `SANDBOX` is the built-in sandbox payer.',
    }),
    provider: Type.Object(
      {
        organizationName: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
        firstName: Type.Optional(Type.String({ minLength: 1, maxLength: 35 })),
        lastName: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
        npi: Type.String({ pattern: '^[0-9]{10}$', description: '10 digits with a valid check digit.' }),
        providerType: Type.Optional(Type.Union([Type.Literal('provider'), Type.Literal('facility')])),
      },
      {
        $id: 'RequestProvider',
        additionalProperties: false,
        description: 'Needs `npi` and either `organizationName` or `firstName` + `lastName`.',
      },
    ),
    subscriber: Type.Object(
      {
        memberId: Type.String({ minLength: 1, maxLength: 80, pattern: '^[A-Za-z0-9-]+$' }),
        firstName: Type.String({ minLength: 1, maxLength: 35 }),
        lastName: Type.String({ minLength: 1, maxLength: 60 }),
        middleName: Type.Optional(Type.String({ minLength: 1, maxLength: 25 })),
        suffix: Type.Optional(
          Type.String({
            pattern: '^[A-Za-z0-9]{1,10}$',
            description:
              'Name suffix such as `JR`, `SR` or `III` (270 NM107). A suffix written in `lastName` is moved here (CAQH CORE rule 258).',
          }),
        ),
        dateOfBirth: Date8('YYYYMMDD, a real date, not in the future.'),
        gender: Type.Optional(Type.Union([Type.Literal('M'), Type.Literal('F'), Type.Literal('U')])),
      },
      { $id: 'RequestSubscriber', additionalProperties: false },
    ),
    encounter: Type.Optional(
      Type.Object(
        {
          serviceTypeCodes: Type.Optional(
            Type.Array(Type.String({ pattern: '^[A-Z0-9]{1,2}$' }), {
              minItems: 1,
              maxItems: 10,
              description: 'X12 service type codes (EQ01), e.g. `30`, `98`, `PT`, `MH`. Default `30`.',
            }),
          ),
          dateOfService: Type.Optional(Date8('YYYYMMDD, a real date from 19000101 to 20991231.')),
          charges: Type.Optional(
            chargeList(
              "An addition to the spec: services to estimate what the patient pays for, answered in the finished check's `estimates` and `estimateTotal` (docs/estimates.md). Applied in their order: what one pays toward the deductible and the out-of-pocket maximum is no longer remaining for the next.",
            ),
          ),
        },
        { $id: 'Encounter', additionalProperties: false },
      ),
    ),
    reuseWithinHours: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_REUSE_WITHIN_HOURS,
        description:
          'An addition to the spec (no paid re-checks): when a COMPLETED check of this organization asked the same question (same payer, provider NPI, subscriber, service types and date of service) and finished within this many hours, no payer call is made and this check completes with that result (`meta.reusedFrom` names it). 1 to 168 (a week); 0 never reuses, whatever the organization default. Absent: the organization default (off unless set in the portal).',
      }),
    ),
  },
  { $id: 'EligibilityCheckRequest', additionalProperties: false, title: 'EligibilityCheckRequest' },
);
export type EligibilityCheckRequest = Static<typeof EligibilityCheckRequest>;

/**
 * A check's request as stored and asked: a submit's, or one inquiry of an insurance discovery, a demographic
 * search whose subscriber has no member id (docs/discovery.md). Only the intake's discovery path makes one.
 */
export type StoredCheckRequest = Omit<EligibilityCheckRequest, 'subscriber'> & {
  subscriber: Omit<EligibilityCheckRequest['subscriber'], 'memberId'> & { memberId?: string };
};
