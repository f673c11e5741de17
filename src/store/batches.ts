/**
 * The `batches` table and a batch's checks, outside the queue: accepting a batch (one transaction, one
 * multi-row insert per chunk of checks), reading its counts and a page of its items. The finishing
 * transaction's update is in src/store/queue/finish-batch-item.ts; statements are typed as described in
 * typed.ts.
 */
import {
  type Db,
  idempotencyKeyStatements,
  organizationPageLookup,
  ownedRowLookup,
  type Queryable,
} from './db.ts';
import { batches, checks, organizations } from './schema.ts';
import { columns, type RowOf, sqlOf } from './typed.ts';

export type BatchRow = typeof batches.$inferSelect;
type CheckRow = typeof checks.$inferSelect;

/** Every column, aliased to its drizzle key. */
export const BATCH_COLUMNS = columns(batches, [
  'id',
  'organizationId',
  'name',
  'total',
  'rejected',
  'pending',
  'completed',
  'failed',
  'active',
  'inactive',
  'undetermined',
  'idempotencyKey',
  'requestHash',
  'createdAt',
  'completedAt',
]);

/** Rows per INSERT: one statement carries a chunk as one JSON parameter (not one round trip per check). */
const CHUNK = 5000;

export type NewBatchCheck = Pick<CheckRow, 'id' | 'tradingPartnerServiceId' | 'request'> &
  Partial<Pick<CheckRow, 'requestCorrections' | 'reuseWithinHours' | 'connection' | 'charges'>> & {
    batchIndex: number;
  };

const INSERT_BATCH = sqlOf`INSERT INTO ${batches} (${batches.id}, ${batches.organizationId}, ${batches.name}, ${batches.total}, ${batches.rejected}, ${batches.pending}, ${batches.idempotencyKey}, ${batches.requestHash})
       VALUES ($1, $2, $3, $4, $5, $4, $6, $7)
       ON CONFLICT (${batches.organizationId}, ${batches.idempotencyKey}) DO NOTHING RETURNING ${batches.id}`;

const INSERT_CHECKS = sqlOf`INSERT INTO ${checks} (${checks.id}, ${checks.organizationId}, ${checks.status}, ${checks.tradingPartnerServiceId}, ${checks.request}, ${checks.batchId}, ${checks.batchIndex}, ${checks.priority},
                             ${checks.requestCorrections}, ${checks.reuseWithinHours}, ${checks.connection}, ${checks.charges})
         SELECT x.id, $2, 'IN_PROGRESS', x.payer, x.request, $3, x.idx, 1, x.corrections,
                COALESCE(x.reuse, (SELECT o.${organizations.reuseWithinHours} FROM ${organizations} o WHERE o.${organizations.id} = $2)),
                x.connection, x.charges
           FROM jsonb_to_recordset($1::jsonb)
             AS x(id text, payer text, idx integer, request jsonb, corrections jsonb, reuse integer, connection text, charges jsonb)`;

/**
 * Inserts the batch and its checks (background priority, due now) in one transaction; false (nothing
 * written) when the organization already has a batch with this idempotency key: the unique index decides
 * races between parallel submissions.
 */
export async function insertBatchWithChecks(
  db: Db,
  batch: Pick<BatchRow, 'id' | 'organizationId' | 'name' | 'rejected' | 'idempotencyKey' | 'requestHash'>,
  items: NewBatchCheck[],
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query(INSERT_BATCH, [
      batch.id,
      batch.organizationId,
      batch.name,
      items.length,
      batch.rejected,
      batch.idempotencyKey,
      batch.requestHash,
    ]);
    if (rows.length === 0) return false;
    for (let start = 0; start < items.length; start += CHUNK) {
      const chunk = items.slice(start, start + CHUNK).map((c) => ({
        id: c.id,
        payer: c.tradingPartnerServiceId,
        idx: c.batchIndex,
        request: c.request,
        corrections: c.requestCorrections ?? null,
        reuse: c.reuseWithinHours ?? null,
        connection: c.connection ?? '',
        charges: c.charges ?? null,
      }));
      await tx.query(INSERT_CHECKS, [JSON.stringify(chunk), batch.organizationId, batch.id]);
    }
    return true;
  });
}

/** A batch of an organization (another organization's reads as absent). */
export const findBatch = ownedRowLookup(batches, BATCH_COLUMNS);

const idempotencyKeys = idempotencyKeyStatements(batches, BATCH_COLUMNS);
/** The batch holding an idempotency key, and whether it is older than `windowMs`. */
export const findBatchByIdempotencyKey = idempotencyKeys.findHolder;
/** Frees an expired idempotency key for reuse (unless another request freed it already). */
export const releaseBatchIdempotencyKey = idempotencyKeys.release;

const COUNT_PENDING = sqlOf`SELECT coalesce(sum(${batches.pending}), 0)::int AS n FROM ${batches} WHERE ${batches.organizationId} = $1 AND ${batches.completedAt} IS NULL`;

/** Batch checks of an organization still in progress (what BATCH_MAX_PENDING_CHECKS limits). */
export async function countPendingBatchChecks(db: Queryable, organizationId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(COUNT_PENDING, [organizationId]);
  return rows[0]?.n ?? 0;
}

const ITEM = columns(checks, ['id', 'status', 'batchIndex', 'verdict']);
export type BatchItemRow = Omit<RowOf<typeof ITEM>, 'batchIndex'> & { batchIndex: number };
const SELECT_ITEMS = sqlOf`SELECT ${ITEM}
       FROM ${checks}
      WHERE ${checks.batchId} = $1 AND ${checks.batchIndex} > $2 AND ($3::text IS NULL OR ${checks.status} = $3)
      ORDER BY ${checks.batchIndex} LIMIT $4`;

/** A page of a batch's checks in request order, after position `after`, optionally of one status. */
export async function selectBatchItems(
  db: Queryable,
  batchId: string,
  page: { status?: string; after: number; limit: number },
): Promise<BatchItemRow[]> {
  const { rows } = await db.query<BatchItemRow>(SELECT_ITEMS, [
    batchId,
    page.after,
    page.status ?? null,
    page.limit,
  ]);
  return rows;
}

const SELECT_IDS = sqlOf`SELECT ${columns(checks, ['id', 'batchIndex'])} FROM ${checks} WHERE ${checks.batchId} = $1 ORDER BY ${checks.batchIndex}`;

/** Every check id of a batch with its position (to answer a replayed submission). */
export async function selectBatchCheckIds(
  db: Queryable,
  batchId: string,
): Promise<Pick<BatchItemRow, 'id' | 'batchIndex'>[]> {
  const { rows } = await db.query<Pick<BatchItemRow, 'id' | 'batchIndex'>>(SELECT_IDS, [batchId]);
  return rows;
}

/**
 * A page of an organization's batches, newest first (ids are UUIDv7, so id order is submission order),
 * after the cursor `before` (the last id of the previous page).
 */
export const listBatches = organizationPageLookup(batches, BATCH_COLUMNS);

const RESULT = columns(checks, ['id', 'status', 'result', 'batchIndex']);
export type BatchResultRow = Omit<RowOf<typeof RESULT>, 'batchIndex'> & { batchIndex: number };
const SELECT_RESULTS = sqlOf`SELECT ${RESULT}
       FROM ${checks}
      WHERE ${checks.batchId} = $1 AND ${checks.batchIndex} > $2
      ORDER BY ${checks.batchIndex} LIMIT $3`;

/**
 * A page of a batch's checks with their stored status bodies (the exact JSON of the status route), in
 * request order after position `after`: the results CSV reads a large batch page by page.
 */
export async function selectBatchResults(
  db: Queryable,
  batchId: string,
  page: { after: number; limit: number },
): Promise<BatchResultRow[]> {
  const { rows } = await db.query<BatchResultRow>(SELECT_RESULTS, [batchId, page.after, page.limit]);
  return rows;
}
