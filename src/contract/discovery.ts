/**
 * Insurance discovery (docs/discovery.md): find a patient's coverage from name and date of birth, without a
 * member id, by asking several payers. One schema is the validator, the TypeScript type and the OpenAPI
 * description. The ranking of what was found is here too, so the status answer and the
 * `discovery.completed` event list coverages in one order.
 */
import Type, { type Static } from 'typebox';
import { EligibilityCheckRequest } from './check-request.ts';
import { type EligibilityCheckResponse, Verdict, type VerdictStatus } from './check-response.ts';

/** At most this many payers are asked per discovery (docs/discovery.md, "Limits"). */
export const MAX_DISCOVERY_PAYERS = 25;

const Date8 = (description: string) => Type.String({ pattern: '^[0-9]{8}$', description });
const subscriber = EligibilityCheckRequest.properties.subscriber.properties;

export const DiscoveryPatient = Type.Object(
  {
    firstName: subscriber.firstName,
    lastName: subscriber.lastName,
    middleName: subscriber.middleName,
    dateOfBirth: Date8('YYYYMMDD (`1980-01-15` is accepted and rewritten), a real date, not in the future.'),
    gender: subscriber.gender,
    state: Type.Optional(
      Type.String({
        pattern: '^[A-Z]{2}$',
        description:
          'Two-letter US state the patient lives in. When the payers come from the directory, those that list the states they serve and not this one are not asked.',
      }),
    ),
    postalCode: Type.Optional(
      Type.String({
        pattern: '^[0-9]{5}([0-9]{4})?$',
        description: 'ZIP code, 5 or 9 digits. Accepted and validated; no payer is chosen by it yet.',
      }),
    ),
  },
  { $id: 'DiscoveryPatient', additionalProperties: false },
);

export const DiscoveryRequest = Type.Object(
  {
    provider: EligibilityCheckRequest.properties.provider,
    patient: DiscoveryPatient,
    dateOfService: Type.Optional(Date8('YYYYMMDD; default the day each inquiry runs.')),
    payers: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 50, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' }), {
        minItems: 1,
        maxItems: MAX_DISCOVERY_PAYERS,
        description:
          "Payer ids of the directory to ask (each must take demographic searches). Default: the organization's discovery list (portal, Organization), else every directory payer that takes demographic searches (at most 25, in directory order).",
      }),
    ),
  },
  { $id: 'DiscoveryRequest', additionalProperties: false, title: 'DiscoveryRequest' },
);
export type DiscoveryRequest = Static<typeof DiscoveryRequest>;

export const DiscoveryStatus = Type.Union([Type.Literal('IN_PROGRESS'), Type.Literal('COMPLETED')], {
  $id: 'DiscoveryStatus',
});
export type DiscoveryStatus = Static<typeof DiscoveryStatus>;

export const DiscoveryAccepted = Type.Object(
  {
    id: Type.String({ description: 'Discovery id (UUIDv7); poll `GET /api/eligibility/discovery/{id}`.' }),
    status: Type.Literal('IN_PROGRESS'),
  },
  { $id: 'DiscoveryAccepted' },
);
export type DiscoveryAccepted = Static<typeof DiscoveryAccepted>;

export const DiscoveredCoverage = Type.Object(
  {
    checkId: Type.String({
      description:
        'The completed check that found it: `GET /api/eligibility/{id}/status` has the whole result (benefits, dependents, x12).',
    }),
    tradingPartnerServiceId: Type.String({ description: 'The payer that answered.' }),
    payerName: Type.Optional(Type.String()),
    planName: Type.Optional(Type.String()),
    groupNumber: Type.Optional(Type.String()),
    verdict: Verdict,
  },
  {
    $id: 'DiscoveredCoverage',
    description:
      "A payer that found the patient. No patient data (the member id is in the check's result), so the discovery and its event hold none.",
  },
);
export type DiscoveredCoverage = Static<typeof DiscoveredCoverage>;

export const Discovery = Type.Object(
  {
    id: Type.String(),
    status: DiscoveryStatus,
    createdAt: Type.String({ description: 'ISO 8601, UTC.' }),
    completedAt: Type.Optional(Type.String({ description: 'ISO 8601, UTC; once COMPLETED.' })),
    progress: Type.Object(
      {
        asked: Type.Integer({ description: 'Payers asked.' }),
        answered: Type.Integer({ description: 'Of them, those whose inquiry is final (found or not).' }),
      },
      { $id: 'DiscoveryProgress' },
    ),
    coverages: Type.Array(DiscoveredCoverage, {
      description:
        'What the payers found, ranked: ACTIVE first, then UNDETERMINED, then INACTIVE; within a rank in the order the payers were asked. Grows while IN_PROGRESS.',
    }),
  },
  { $id: 'Discovery' },
);
export type Discovery = Static<typeof Discovery>;

/** The body of `discovery.completed`. */
export const DiscoveryCompletedEvent = Type.Object(
  { type: Type.Literal('discovery.completed'), discovery: Discovery },
  { $id: 'DiscoveryCompletedEvent' },
);

/** A discovery's row as the status answer needs it (store/discoveries.ts reads it). */
export interface DiscoveryTotals {
  id: string;
  status: string;
  asked: number;
  answered: number;
  createdAt: Date | string;
  completedAt: Date | string | null;
}

/** A completed inquiry of a discovery: its check and the stored status body. */
export interface FoundCheck {
  id: string;
  tradingPartnerServiceId: string;
  result: string | null;
}

const RANK: Record<VerdictStatus, number> = { ACTIVE: 0, UNDETERMINED: 1, INACTIVE: 2, FAILED: 3 };

/** One found coverage, from its check's stored status body. */
export function coverageOf(check: FoundCheck): DiscoveredCoverage | undefined {
  if (!check.result) return undefined;
  const body = JSON.parse(check.result) as EligibilityCheckResponse;
  if (body.status !== 'COMPLETED' || !body.verdict) return undefined;
  const plan = body.planInformation;
  return {
    checkId: check.id,
    tradingPartnerServiceId: check.tradingPartnerServiceId,
    ...(body.payer?.payerName ? { payerName: body.payer.payerName } : {}),
    ...(plan?.planName ? { planName: plan.planName } : {}),
    ...(plan?.groupNumber ? { groupNumber: plan.groupNumber } : {}),
    verdict: body.verdict,
  };
}

/** The discovery as `GET /api/eligibility/discovery/{id}` answers it; `found` in the order asked. */
export function discoveryOf(row: DiscoveryTotals, found: readonly FoundCheck[]): Discovery {
  const coverages = found
    .map(coverageOf)
    .filter((c): c is DiscoveredCoverage => c !== undefined)
    .map((c, at) => ({ c, at }))
    .sort((a, b) => RANK[a.c.verdict.status] - RANK[b.c.verdict.status] || a.at - b.at)
    .map(({ c }) => c);
  const iso = (t: Date | string) => new Date(t).toISOString();
  return {
    id: row.id,
    status: row.status === 'COMPLETED' ? 'COMPLETED' : 'IN_PROGRESS',
    createdAt: iso(row.createdAt),
    ...(row.completedAt ? { completedAt: iso(row.completedAt) } : {}),
    progress: { asked: row.asked, answered: row.answered },
    coverages,
  };
}

/** The body of `discovery.completed`, serialized once when the event is written. */
export function discoveryCompletedBody(discovery: Discovery): string {
  return JSON.stringify({ type: 'discovery.completed', discovery });
}
