/**
 * Reading batches (docs/batches.md): one batch's progress with a page of its items, the organization's
 * batches newest first, and a batch's results page by page for the CSV. Always scoped by organization:
 * another organization's batch reads as absent.
 */
import type { BatchItem, BatchSummary } from '../contract/batch.ts';
import { batchSummary } from '../contract/batch.ts';
import type { EligibilityCheckResponse, VerdictStatus } from '../contract/check-response.ts';
import { findBatch, listBatches, selectBatchItems, selectBatchResults } from '../store/batches.ts';
import type { Db } from '../store/db.ts';
import type { ResultRow } from './csv.ts';

export const BATCH_ITEM_STATUSES = ['IN_PROGRESS', 'COMPLETED', 'FAILED'] as const;

/** A batch with one page of its items; undefined for a batch that is not this organization's. */
export async function readBatch(
  db: Db,
  organizationId: string,
  id: string,
  page: { status?: (typeof BATCH_ITEM_STATUSES)[number]; after?: number; limit: number },
): Promise<(BatchSummary & { items: BatchItem[]; next: string | null }) | undefined> {
  const batch = await findBatch(db, organizationId, id);
  if (!batch) return undefined;
  const rows = await selectBatchItems(db, batch.id, {
    status: page.status,
    after: page.after ?? -1,
    limit: page.limit + 1,
  });
  const items = rows.slice(0, page.limit).map((r) => ({
    id: r.id,
    index: r.batchIndex,
    status: r.status as BatchItem['status'],
    verdict: (r.verdict as VerdictStatus | null) ?? null,
  }));
  const next = rows.length > page.limit ? String(items.at(-1)!.index) : null;
  return { ...batchSummary(batch), items, next };
}

/** A page of the organization's batches, newest first, and the cursor of the next page (null: the last). */
export async function listOrganizationBatches(
  db: Db,
  organizationId: string,
  page: { before?: string; limit: number },
): Promise<{ batches: BatchSummary[]; next: string | null }> {
  const rows = await listBatches(db, organizationId, { before: page.before, limit: page.limit + 1 });
  const batches = rows.slice(0, page.limit).map(batchSummary);
  return { batches, next: rows.length > page.limit ? batches.at(-1)!.id : null };
}

/** Checks read per query when writing a batch's results: bounded memory for a 10,000-check batch. */
const RESULT_PAGE = 500;

/**
 * A batch's results CSV rows, page by page in request order: each check with its stored status body, the
 * exact JSON `GET /api/eligibility/{id}/status` answers, so `elig batch results --csv` (which reads that
 * route) and the portal's download write the same file. A check still in progress has no body (null), as
 * in the CLI. The caller has checked that the batch is the organization's (`readBatch`).
 */
export async function* batchResultPages(db: Db, batchId: string): AsyncGenerator<ResultRow[]> {
  for (let after = -1; ; ) {
    const rows = await selectBatchResults(db, batchId, { after, limit: RESULT_PAGE });
    if (rows.length === 0) return;
    yield rows.map((r) => ({
      index: r.batchIndex,
      id: r.id,
      body:
        r.status === 'IN_PROGRESS' || r.result === null
          ? null
          : (JSON.parse(r.result) as EligibilityCheckResponse),
    }));
    after = rows.at(-1)!.batchIndex;
  }
}
