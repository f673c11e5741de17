/**
 * Webhook event types as data (issue 17 section 4): each type's name, what it reports, an example body and
 * how its body is built. The dispatcher sends the type in `X-Webhook-Event` and the outbox row stores it;
 * docs/webhooks.md and the OpenAPI `webhooks` section are written from this table (a test compares them).
 * Adding a type is a row here plus the code that inserts its events in the transaction of the fact.
 */
import Type, { type Static, type TSchema } from 'typebox';
import { BatchSummary } from './batch.ts';
import { EligibilityCheckResponse, PRODUCT_SERVICE_TYPES } from './check-response.ts';
import { DiscoveryCompletedEvent, discoveryCompletedBody } from './discovery.ts';

export const EVENT_TYPE_NAMES = [
  'eligibility.completed',
  'batch.completed',
  'coverage.changed',
  'discovery.completed',
] as const;
export type EventTypeName = (typeof EVENT_TYPE_NAMES)[number];

export interface EventType {
  name: EventTypeName;
  description: string;
  /** A body as a receiver sees it (documentation and the OpenAPI description). */
  example: unknown;
  /** The body's schema (named with `$id`: the OpenAPI document lists it under `components.schemas`). */
  schema: TSchema;
}

/** The body of `batch.completed`. */
export const BatchCompletedEvent = Type.Object(
  { type: Type.Literal('batch.completed'), batch: BatchSummary },
  { $id: 'BatchCompletedEvent' },
);

/** What kind of change a `coverage.changed` event reports (docs/webhooks.md lists when each is found). */
export const COVERAGE_CHANGE_KINDS = [
  'PLAN_STATUS',
  'PLAN_NAME',
  'GROUP_NUMBER',
  'NETWORK_STATUS',
  'COVERAGE_STATUS',
  'DEDUCTIBLE_MET',
  'OUT_OF_POCKET_MET',
  'VISITS_EXHAUSTED',
] as const;
export type CoverageChangeKind = (typeof COVERAGE_CHANGE_KINDS)[number];

const ChangeValue = (description: string) =>
  Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()], { description });

export const CoverageChange = Type.Object(
  {
    kind: Type.Enum(COVERAGE_CHANGE_KINDS, { description: 'What changed, as a code a program can act on.' }),
    field: Type.String({
      description:
        "The result field that changed: `planActive`, `planInformation.planName`, `planInformation.groupNumber`, `providerNetwork.status`, or a field of the service type's benefit entry (`coverageStatus`, `deductibleRemaining`, `familyDeductibleRemaining`, `outOfPocketRemaining`, `familyOutOfPocketRemaining`, `visitsUsed`).",
    }),
    serviceType: Type.Optional(
      Type.Enum(PRODUCT_SERVICE_TYPES, {
        description: 'The service type whose entry changed (absent for plan-level changes).',
      }),
    ),
    before: ChangeValue('Its value in the earlier check.'),
    after: ChangeValue('Its value in this check.'),
    visitLimit: Type.Optional(Type.Number({ description: 'For `VISITS_EXHAUSTED`: the visits allowed.' })),
  },
  { $id: 'CoverageChange' },
);
export type CoverageChange = Static<typeof CoverageChange>;

/** The body of `coverage.changed`. */
export const CoverageChangedEvent = Type.Object(
  {
    type: Type.Literal('coverage.changed'),
    checkId: Type.String({ description: 'The check that found the change.' }),
    previousCheckId: Type.String({ description: 'The earlier completed check it was compared with.' }),
    previousFinishedAt: Type.String({ description: 'When the earlier check finished (ISO 8601, UTC).' }),
    tradingPartnerServiceId: Type.String({ description: 'The payer of both checks.' }),
    changes: Type.Array(CoverageChange, { minItems: 1 }),
  },
  { $id: 'CoverageChangedEvent' },
);
export type CoverageChangedEvent = Static<typeof CoverageChangedEvent>;

const EXAMPLE_CHECK_ID = '01a20797-6339-708a-b3b2-fc1391ac3a22';
const EXAMPLE_BATCH_ID = '01a20797-5d10-7c4e-8f0b-6a1b0c2d3e4f';

export const EVENT_TYPES: readonly EventType[] = [
  {
    name: 'eligibility.completed',
    description:
      'A check finished (COMPLETED or FAILED). The body is exactly the status body of the check (`GET /api/eligibility/{id}/status`), as the spec requires. Not sent for the inquiries of an insurance discovery: its `discovery.completed` reports them.',
    schema: EligibilityCheckResponse,
    example: {
      id: EXAMPLE_CHECK_ID,
      status: 'COMPLETED',
      verdict: { status: 'ACTIVE', summary: 'Coverage active: Sandbox PPO Gold, in network' },
      tradingPartnerServiceId: 'SANDBOX',
      planActive: true,
      benefits: [],
    },
  },
  {
    name: 'batch.completed',
    description:
      'The last check of a batch finished. Sent once per batch, after the `eligibility.completed` events of its checks were written; the body is the batch summary of `GET /api/eligibility/batch/{id}` without the items.',
    schema: BatchCompletedEvent,
    example: JSON.parse(
      batchCompletedBody({
        id: EXAMPLE_BATCH_ID,
        name: 'Schedule 2026-11-25',
        status: 'COMPLETED',
        createdAt: '2026-11-24T18:00:00.000Z',
        completedAt: '2026-11-24T18:04:12.000Z',
        counts: { total: 120, rejected: 2, IN_PROGRESS: 0, COMPLETED: 117, FAILED: 3 },
        verdicts: { ACTIVE: 110, INACTIVE: 5, UNDETERMINED: 2, FAILED: 3 },
        progress: 1,
      }),
    ),
  },
  {
    name: 'coverage.changed',
    description:
      "A patient's coverage differs from the organization's latest earlier completed check of the same patient with the same payer (plan active/inactive, plan name or group, network status, a service type's coverage status, deductible or out-of-pocket met, visits exhausted). At most one per check, written with the check's `eligibility.completed` (each is delivered on its own, so either may arrive first); never for a check answered from an earlier one (`meta.reusedFrom`).",
    schema: CoverageChangedEvent,
    example: JSON.parse(
      coverageChangedBody({
        checkId: EXAMPLE_CHECK_ID,
        previousCheckId: '01a1f3c2-0b7e-7d11-9a40-2c8e5f6a7b80',
        previousFinishedAt: '2026-10-30T16:02:11.000Z',
        tradingPartnerServiceId: 'SANDBOX',
        changes: [
          { kind: 'DEDUCTIBLE_MET', field: 'deductibleRemaining', before: 500, after: 0 },
          {
            kind: 'VISITS_EXHAUSTED',
            field: 'visitsUsed',
            serviceType: 'Outpatient Physical Therapy',
            before: 4,
            after: 20,
            visitLimit: 20,
          },
        ],
      }),
    ),
  },
  {
    name: 'discovery.completed',
    description:
      'Every payer an insurance discovery asked has answered (or failed for good). Sent once per discovery; the body is `GET /api/eligibility/discovery/{id}` at that moment: the coverages found, ranked ACTIVE first, each naming its completed check. It carries no patient data.',
    schema: DiscoveryCompletedEvent,
    example: JSON.parse(
      discoveryCompletedBody({
        id: '01a20797-7a10-7c4e-9f0b-6a1b0c2d3e50',
        status: 'COMPLETED',
        createdAt: '2026-11-24T18:00:00.000Z',
        completedAt: '2026-11-24T18:00:03.000Z',
        progress: { asked: 3, answered: 3 },
        coverages: [
          {
            checkId: EXAMPLE_CHECK_ID,
            tradingPartnerServiceId: 'SANDBOX',
            payerName: 'Sandbox Health Plan',
            planName: 'Sandbox PPO Gold',
            groupNumber: 'G-12345',
            verdict: { status: 'ACTIVE', summary: 'Coverage active: Sandbox PPO Gold, in network' },
          },
        ],
      }),
    ),
  },
];

/** True for a name of the table (what an organization may subscribe to). */
export function isEventTypeName(name: string): name is EventTypeName {
  return (EVENT_TYPE_NAMES as readonly string[]).includes(name);
}

/** The body of `eligibility.completed`: the stored status body, byte for byte. */
export function eligibilityCompletedBody(statusBody: string): string {
  return statusBody;
}

/** The body of `batch.completed`, serialized once when the event is written. */
export function batchCompletedBody(batch: BatchSummary): string {
  return JSON.stringify({ type: 'batch.completed', batch });
}

/** The body of `coverage.changed`, serialized once when the event is written. */
export function coverageChangedBody(event: Omit<CoverageChangedEvent, 'type'>): string {
  const { checkId, previousCheckId, previousFinishedAt, tradingPartnerServiceId, changes } = event;
  return JSON.stringify({
    type: 'coverage.changed',
    checkId,
    previousCheckId,
    previousFinishedAt,
    tradingPartnerServiceId,
    changes,
  });
}
