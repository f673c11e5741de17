/**
 * A store of its own for the tests of one src/store module: PGlite (a copy of the migrated template), or
 * PostgreSQL in a fresh schema when DATABASE_URL is set, dropped at the end. Plus the rows most of those
 * tests start from: an organization and a check of the sandbox's Jane Doe (not PHI: a sandbox member).
 */
import { rmSync } from 'node:fs';
import type { EligibilityCheckRequest } from '../../src/contract/check-request.ts';
import { prefixedId, uuidv7 } from '../../src/ids.ts';
import { insertCheck } from '../../src/store/checks.ts';
import type { Db } from '../../src/store/db.ts';
import { openStore } from '../../src/store/open.ts';
import { insertOrganization } from '../../src/store/organizations.ts';
import { claimDue, QUEUES } from '../../src/store/queue/claim.ts';
import { dropTestSchema, testConfig } from './service.ts';

export interface TestStore {
  db: Db;
  close(): Promise<void>;
}

export async function openTestStore(): Promise<TestStore> {
  const config = testConfig();
  const store = await openStore(config);
  return {
    db: store.db,
    async close() {
      await store.close();
      await dropTestSchema(config);
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

export const JANE_REQUEST: EligibilityCheckRequest = {
  tradingPartnerServiceId: 'SANDBOX',
  provider: { organizationName: 'Test Clinic', npi: '1234567893' },
  subscriber: { memberId: 'SBX1000001', firstName: 'JANE', lastName: 'DOE', dateOfBirth: '19800115' },
};

/** A new organization (no webhook URL); returns its id. */
export async function newOrganization(db: Db, name = 'Store Test Clinic'): Promise<string> {
  const id = prefixedId('org');
  await insertOrganization(db, { id, name });
  return id;
}

let lastMs = 0;
/**
 * A UUIDv7 later than every one this helper made before: two ids of the same millisecond are ordered only
 * by their random bits, so a test that lists "newest first" gives each row its own millisecond.
 */
export function orderedId(): string {
  lastMs = Math.max(Date.now(), lastMs + 1);
  return uuidv7(lastMs);
}

/** A new IN_PROGRESS check of Jane Doe, due now; returns its id. */
export async function newCheck(
  db: Db,
  organizationId: string,
  request: EligibilityCheckRequest = JANE_REQUEST,
): Promise<string> {
  const id = orderedId();
  await insertCheck(db, {
    id,
    organizationId,
    tradingPartnerServiceId: request.tradingPartnerServiceId,
    request,
  });
  return id;
}

/** Marks a check finished with `body` as its stored result (what the worker's finish writes, in short). */
export async function markFinished(
  db: Db,
  id: string,
  body: { status: 'COMPLETED' | 'FAILED'; verdict?: { status: string } } & Record<string, unknown>,
): Promise<void> {
  await db.query(
    `UPDATE checks SET status = $2, result = $3, completed_at = now(), verdict = $4, outcome_code = $2
      WHERE id = $1`,
    [id, body.status, JSON.stringify({ id, ...body }), body.verdict?.status ?? null],
  );
}

/**
 * A new check of `organizationId`, claimed by `workerId` (every check due in the store is claimed with it:
 * each test file has a store of its own); returns its id.
 */
export async function claimedCheck(db: Db, organizationId: string, workerId: string): Promise<string> {
  const id = await newCheck(db, organizationId);
  const claimed = await claimDue(db, QUEUES.checks, ['id'], { workerId, limit: 1000, leaseMs: 60_000 });
  if (!claimed.some((c) => c.id === id)) throw new Error('the new check was not claimed');
  return id;
}

/** A check's queue columns, as stored. */
export async function queueState(db: Db, id: string) {
  const { rows } = await db.query<{
    status: string;
    attempts: number;
    locked_by: string | null;
    locked_until: Date | null;
    next_attempt_at: Date;
    last_error: string | null;
  }>(
    'SELECT status, attempts, locked_by, locked_until, next_attempt_at, last_error FROM checks WHERE id = $1',
    [id],
  );
  return rows[0]!;
}
