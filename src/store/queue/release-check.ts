/**
 * Gives a claimed check back untouched (graceful shutdown): the lease ends now and the attempt does not
 * count. Guarded by the lease like every write of a claimed row (see claim.ts).
 */
import type { Queryable } from '../db.ts';

export async function releaseCheck(db: Queryable, id: string, workerId: string): Promise<void> {
  await db.query(
    `UPDATE checks SET locked_until = NULL, locked_by = NULL, attempts = greatest(attempts - 1, 0)
      WHERE id = $1 AND locked_by = $2 AND status = 'IN_PROGRESS'`,
    [id, workerId],
  );
}
