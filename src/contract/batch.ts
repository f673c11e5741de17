/**
 * Batches (issue 17 section 1): many submit bodies in one request, and the batch's progress. One schema is
 * the validator's documentation, the TypeScript type and the OpenAPI description, as for a single check.
 */
import Type, { type Static } from 'typebox';
import { EligibilityCheckRequest } from './check-request.ts';
import { CheckStatus, VerdictStatus } from './check-response.ts';

export const MAX_BATCH_CHECKS = 10_000;

export const BatchRequest = Type.Object(
  {
    checks: Type.Array(EligibilityCheckRequest, {
      minItems: 1,
      maxItems: MAX_BATCH_CHECKS,
      description: 'Submit bodies, each exactly as `POST /api/eligibility` takes it.',
    }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A label for people.' })),
    atomic: Type.Optional(
      Type.Boolean({
        description: 'true: refuse the whole batch (400) when any item is invalid. Default: accept the rest.',
      }),
    ),
  },
  { $id: 'BatchRequest', additionalProperties: false },
);
export type BatchRequest = Static<typeof BatchRequest>;

/** Checks of a batch by status (invalid items never became checks: they are `rejected`). */
export const BatchCounts = Type.Object(
  {
    total: Type.Integer({ description: 'Checks accepted (items that became checks).' }),
    rejected: Type.Integer({ description: 'Items refused as invalid (no check was created).' }),
    IN_PROGRESS: Type.Integer(),
    COMPLETED: Type.Integer(),
    FAILED: Type.Integer(),
  },
  { $id: 'BatchCounts' },
);
export type BatchCounts = Static<typeof BatchCounts>;

/** Finished checks of a batch by verdict (FAILED here equals the FAILED status count). */
export const BatchVerdicts = Type.Object(
  {
    ACTIVE: Type.Integer(),
    INACTIVE: Type.Integer(),
    UNDETERMINED: Type.Integer(),
    FAILED: Type.Integer(),
  },
  { $id: 'BatchVerdicts' },
);
export type BatchVerdicts = Static<typeof BatchVerdicts>;

export const BatchStatus = Type.Union([Type.Literal('IN_PROGRESS'), Type.Literal('COMPLETED')], {
  $id: 'BatchStatus',
});

export const BatchItemProblem = Type.Object(
  {
    index: Type.Integer({ description: 'Position of the item in `checks` (from 0).' }),
    message: Type.String({ description: 'The same message a single submit of that body would answer.' }),
  },
  { $id: 'BatchItemProblem' },
);

export const BatchAccepted = Type.Object(
  {
    id: Type.String({ description: 'Batch id (UUIDv7); poll `GET /api/eligibility/batch/{id}`.' }),
    status: BatchStatus,
    counts: BatchCounts,
    items: Type.Array(
      Type.Union([Type.Object({ id: Type.String() }), Type.Object({ error: Type.String() })]),
      {
        description:
          'One entry per item, in request order: the check id, or the reason the item was refused (also in `problems`).',
      },
    ),
    problems: Type.Array(BatchItemProblem),
  },
  { $id: 'BatchAccepted' },
);
export type BatchAccepted = Static<typeof BatchAccepted>;

export const BatchItem = Type.Object(
  {
    id: Type.String({ description: 'Check id; readable alone at `GET /api/eligibility/{id}/status`.' }),
    index: Type.Integer({ description: 'Position of the item in the submitted `checks`.' }),
    status: CheckStatus,
    verdict: Type.Union([VerdictStatus, Type.Null()], { description: 'null while IN_PROGRESS.' }),
  },
  { $id: 'BatchItem' },
);
export type BatchItem = Static<typeof BatchItem>;

export const BatchSummary = Type.Object(
  {
    id: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
    status: BatchStatus,
    createdAt: Type.String({ format: 'date-time' }),
    completedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    counts: BatchCounts,
    verdicts: BatchVerdicts,
    progress: Type.Number({ minimum: 0, maximum: 1, description: 'Finished checks / accepted checks.' }),
  },
  { $id: 'BatchSummary' },
);
export type BatchSummary = Static<typeof BatchSummary>;

export const BatchPage = Type.Intersect(
  [
    BatchSummary,
    Type.Object({
      items: Type.Array(BatchItem),
      next: Type.Union([Type.String(), Type.Null()], {
        description: 'Cursor of the next page (`?after=`), null on the last page.',
      }),
    }),
  ],
  { $id: 'BatchPage' },
);

/** What a batch's stored row says of it: its counters and times (the store's `batches` row has these). */
export interface BatchTotals {
  id: string;
  name: string | null;
  total: number;
  rejected: number;
  pending: number;
  completed: number;
  failed: number;
  active: number;
  inactive: number;
  undetermined: number;
  createdAt: Date;
  completedAt: Date | null;
}

/** A batch's checks by status, as `counts` shows them. */
export function batchCounts(batch: BatchTotals): BatchSummary['counts'] {
  return {
    total: batch.total,
    rejected: batch.rejected,
    IN_PROGRESS: batch.pending,
    COMPLETED: batch.completed,
    FAILED: batch.failed,
  };
}

/** The batch as the API, the webhook and the portal show it, without its items. */
export function batchSummary(batch: BatchTotals): BatchSummary {
  const finished = batch.total - batch.pending;
  return {
    id: batch.id,
    name: batch.name,
    status: batch.completedAt ? 'COMPLETED' : 'IN_PROGRESS',
    createdAt: batch.createdAt.toISOString(),
    completedAt: batch.completedAt?.toISOString() ?? null,
    counts: batchCounts(batch),
    verdicts: {
      ACTIVE: batch.active,
      INACTIVE: batch.inactive,
      UNDETERMINED: batch.undetermined,
      FAILED: batch.failed,
    },
    progress: batch.total === 0 ? 1 : Math.round((finished / batch.total) * 10_000) / 10_000,
  };
}
