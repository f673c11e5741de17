/**
 * The submit request of the API spec (../shared/spec/eligibility-api.md): one TypeBox schema is the
 * validator, the TypeScript type and the OpenAPI description. The rules JSON Schema cannot say (NPI check
 * digit, real dates, known service type codes) are checked in checks/request.ts.
 */
import Type, { type Static } from 'typebox';

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
        dateOfBirth: Date8('YYYYMMDD, a real date, not in the future.'),
        gender: Type.Optional(Type.Union([Type.Literal('M'), Type.Literal('F'), Type.Literal('U')])),
      },
      { additionalProperties: false },
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
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, title: 'EligibilityCheckRequest' },
);
export type EligibilityCheckRequest = Static<typeof EligibilityCheckRequest>;
