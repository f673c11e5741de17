/**
 * The `discoveries` table and a discovery's inquiries outside the queue: accepting a discovery (its row and
 * one check per payer, in one transaction, within the organization's daily cap), reading it and its found
 * coverages. The finishing transaction's count is in src/store/queue/finish-discovery-item.ts; statements
 * are typed as described in typed.ts.
 */
import type { StoredCheckRequest } from '../contract/check-request.ts';
import type { RequestCorrection } from '../contract/check-response.ts';
import type { FoundCheck } from '../contract/discovery.ts';
import { lockForTransaction } from './advisory-lock.ts';
import { type Db, ownedRowLookup, type Queryable } from './db.ts';
import { checks, discoveries } from './schema.ts';
import { columns, sqlOf } from './typed.ts';

export type DiscoveryRow = typeof discoveries.$inferSelect;

export const DISCOVERY_COLUMNS = columns(discoveries, [
  'id',
  'organizationId',
  'status',
  'asked',
  'answered',
  'found',
  'pending',
  'createdAt',
  'completedAt',
]);

/** One inquiry of a new discovery: a check of one payer, asking by name and date of birth. */
export interface NewDiscoveryInquiry {
  id: string;
  tradingPartnerServiceId: string;
  request: StoredCheckRequest;
  requestCorrections: RequestCorrection[] | null;
}

/** Payers asked by an organization's discoveries since the start of the current UTC day. */
const ASKED_TODAY = sqlOf`SELECT coalesce(sum(${discoveries.asked}), 0)::int AS n FROM ${discoveries}
      WHERE ${discoveries.organizationId} = $1
        AND ${discoveries.createdAt} >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;

const INSERT_DISCOVERY = sqlOf`INSERT INTO ${discoveries} (${discoveries.id}, ${discoveries.organizationId}, ${discoveries.asked}, ${discoveries.pending})
       VALUES ($1, $2, $3, $3)`;

// Interactive (priority 0: someone waits for the answer) and never answered from an earlier check: a
// discovery's point is to ask.
const INSERT_INQUIRIES = sqlOf`INSERT INTO ${checks} (${checks.id}, ${checks.organizationId}, ${checks.status}, ${checks.tradingPartnerServiceId}, ${checks.request},
                             ${checks.requestCorrections}, ${checks.discoveryId}, ${checks.priority}, ${checks.reuseWithinHours})
         SELECT x.id, $2, 'IN_PROGRESS', x.payer, x.request, x.corrections, $3, 0, 0
           FROM jsonb_to_recordset($1::jsonb) AS x(id text, payer text, request jsonb, corrections jsonb)`;

export type DiscoveryInsert = { ok: true } | { ok: false; askedToday: number };

/**
 * Inserts the discovery and its inquiries (due now) in one transaction, unless they would take the
 * organization's payers asked today past `dailyCap`. The organization's lock (taken first, held to commit)
 * makes the count and the insert one step: two discoveries racing for the last inquiries of the day take
 * turns, and the second sees the first's row.
 */
export async function insertDiscoveryWithInquiries(
  db: Db,
  discovery: { id: string; organizationId: string; dailyCap: number },
  inquiries: NewDiscoveryInquiry[],
): Promise<DiscoveryInsert> {
  return db.transaction(async (tx) => {
    await lockForTransaction(tx, 'discoveries.daily-cap', discovery.organizationId);
    const { rows } = await tx.query<{ n: number }>(ASKED_TODAY, [discovery.organizationId]);
    const askedToday = rows[0]?.n ?? 0;
    if (askedToday + inquiries.length > discovery.dailyCap) return { ok: false, askedToday };
    await tx.query(INSERT_DISCOVERY, [discovery.id, discovery.organizationId, inquiries.length]);
    const items = inquiries.map((i) => ({
      id: i.id,
      payer: i.tradingPartnerServiceId,
      request: i.request,
      corrections: i.requestCorrections,
    }));
    await tx.query(INSERT_INQUIRIES, [JSON.stringify(items), discovery.organizationId, discovery.id]);
    return { ok: true };
  });
}

/** Payers the organization's discoveries asked today (UTC), what DISCOVERY_MAX_INQUIRIES_PER_DAY caps. */
export async function countDiscoveryInquiriesToday(db: Queryable, organizationId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(ASKED_TODAY, [organizationId]);
  return rows[0]?.n ?? 0;
}

/** A discovery of an organization (another organization's reads as absent). */
export const findDiscovery = ownedRowLookup(discoveries, DISCOVERY_COLUMNS);

const FOUND = columns(checks, ['id', 'tradingPartnerServiceId', 'result']);
const SELECT_FOUND = sqlOf`SELECT ${FOUND} FROM ${checks}
      WHERE ${checks.discoveryId} = $1 AND ${checks.status} = 'COMPLETED' ORDER BY ${checks.id}`;

/** A discovery's completed inquiries (the payers that found the patient), in the order they were asked. */
export async function selectDiscoveryFound(db: Queryable, discoveryId: string): Promise<FoundCheck[]> {
  const { rows } = await db.query<FoundCheck>(SELECT_FOUND, [discoveryId]);
  return rows;
}
