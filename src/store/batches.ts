/**
 * The `batches` table and a batch's checks, outside the queue: accepting a batch (one transaction, one
 * multi-row insert per chunk of checks), reading its counts and a page of its items. The finishing
 * transaction's update is in src/store/queue/finish-batch-item.ts; row typing as described at the top of
 * organizations.ts.
 */
import {
  type Db,
  idempotencyKeyStatements,
  organizationPageLookup,
  ownedRowLookup,
  type Queryable,
} from './db.ts';
import type { batches, checks } from './schema.ts';

export type BatchRow = typeof batches.$inferSelect;
type CheckRow = typeof checks.$inferSelect;

/** Every column, aliased to its drizzle key. */
export const BATCH_COLUMNS = `id, organization_id AS "organizationId", name, total, rejected, pending, completed, failed,
  active, inactive, undetermined, idempotency_key AS "idempotencyKey", request_hash AS "requestHash",
  created_at AS "createdAt", completed_at AS "completedAt"`;

/** Rows per INSERT: one statement carries a chunk as one JSON parameter (not one round trip per check). */
const CHUNK = 5000;

export type NewBatchCheck = Pick<CheckRow, 'id' | 'tradingPartnerServiceId' | 'request'> &
  Partial<Pick<CheckRow, 'requestCorrections' | 'reuseWithinHours'>> & { batchIndex: number };

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
    const { rows } = await tx.query(
      `INSERT INTO batches (id, organization_id, name, total, rejected, pending, idempotency_key, request_hash)
       VALUES ($1, $2, $3, $4, $5, $4, $6, $7)
       ON CONFLICT (organization_id, idempotency_key) DO NOTHING RETURNING id`,
      [
        batch.id,
        batch.organizationId,
        batch.name,
        items.length,
        batch.rejected,
        batch.idempotencyKey,
        batch.requestHash,
      ],
    );
    if (rows.length === 0) return false;
    for (let start = 0; start < items.length; start += CHUNK) {
      const chunk = items.slice(start, start + CHUNK).map((c) => ({
        id: c.id,
        payer: c.tradingPartnerServiceId,
        idx: c.batchIndex,
        request: c.request,
        corrections: c.requestCorrections ?? null,
        reuse: c.reuseWithinHours ?? null,
      }));
      await tx.query(
        `INSERT INTO checks (id, organization_id, status, trading_partner_service_id, request, batch_id, batch_index, priority,
                             request_corrections, reuse_within_hours)
         SELECT x.id, $2, 'IN_PROGRESS', x.payer, x.request, $3, x.idx, 1, x.corrections,
                COALESCE(x.reuse, (SELECT o.reuse_within_hours FROM organizations o WHERE o.id = $2))
           FROM jsonb_to_recordset($1::jsonb)
             AS x(id text, payer text, idx integer, request jsonb, corrections jsonb, reuse integer)`,
        [JSON.stringify(chunk), batch.organizationId, batch.id],
      );
    }
    return true;
  });
}

/** A batch of an organization (another organization's reads as absent). */
export const findBatch = ownedRowLookup<BatchRow>('batches', BATCH_COLUMNS);

const idempotencyKeys = idempotencyKeyStatements<BatchRow>('batches', BATCH_COLUMNS);
/** The batch holding an idempotency key, and whether it is older than `windowMs`. */
export const findBatchByIdempotencyKey = idempotencyKeys.findHolder;
/** Frees an expired idempotency key for reuse (unless another request freed it already). */
export const releaseBatchIdempotencyKey = idempotencyKeys.release;

/** Batch checks of an organization still in progress (what BATCH_MAX_PENDING_CHECKS limits). */
export async function countPendingBatchChecks(db: Queryable, organizationId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT coalesce(sum(pending), 0)::int AS n FROM batches WHERE organization_id = $1 AND completed_at IS NULL',
    [organizationId],
  );
  return rows[0]?.n ?? 0;
}

export type BatchItemRow = Pick<CheckRow, 'id' | 'status' | 'verdict'> & {
  batchIndex: number;
};

/** A page of a batch's checks in request order, after position `after`, optionally of one status. */
export async function selectBatchItems(
  db: Queryable,
  batchId: string,
  page: { status?: string; after: number; limit: number },
): Promise<BatchItemRow[]> {
  const { rows } = await db.query<BatchItemRow>(
    `SELECT id, status, batch_index AS "batchIndex", verdict
       FROM checks
      WHERE batch_id = $1 AND batch_index > $2 AND ($3::text IS NULL OR status = $3)
      ORDER BY batch_index LIMIT $4`,
    [batchId, page.after, page.status ?? null, page.limit],
  );
  return rows;
}

/** Every check id of a batch with its position (to answer a replayed submission). */
export async function selectBatchCheckIds(
  db: Queryable,
  batchId: string,
): Promise<Pick<BatchItemRow, 'id' | 'batchIndex'>[]> {
  const { rows } = await db.query<Pick<BatchItemRow, 'id' | 'batchIndex'>>(
    'SELECT id, batch_index AS "batchIndex" FROM checks WHERE batch_id = $1 ORDER BY batch_index',
    [batchId],
  );
  return rows;
}

/**
 * A page of an organization's batches, newest first (ids are UUIDv7, so id order is submission order),
 * after the cursor `before` (the last id of the previous page).
 */
export const listBatches = organizationPageLookup<BatchRow>('batches', BATCH_COLUMNS);

export type BatchResultRow = Pick<CheckRow, 'id' | 'status' | 'result'> & { batchIndex: number };

/**
 * A page of a batch's checks with their stored status bodies (the exact JSON of the status route), in
 * request order after position `after`: the results CSV reads a large batch page by page.
 */
export async function selectBatchResults(
  db: Queryable,
  batchId: string,
  page: { after: number; limit: number },
): Promise<BatchResultRow[]> {
  const { rows } = await db.query<BatchResultRow>(
    `SELECT id, status, result, batch_index AS "batchIndex"
       FROM checks
      WHERE batch_id = $1 AND batch_index > $2
      ORDER BY batch_index LIMIT $3`,
    [batchId, page.after, page.limit],
  );
  return rows;
}
