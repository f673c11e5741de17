import { prefixedId } from '../ids.ts';
import type { Db, Queryable } from '../store/db.ts';
import { announceAccessChange } from './api-keys.ts';

export interface Organization {
  id: string;
  name: string;
  eligibilityEnabled: boolean;
}

export async function createOrganization(db: Queryable, name: string): Promise<Organization> {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 200) throw new Error('organization name must be 1-200 characters');
  const id = prefixedId('org');
  await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [id, trimmed]);
  return { id, name: trimmed, eligibilityEnabled: true };
}

/** Keys of the organization answer 403 (or work again) in every process once this commits. */
export async function setEligibilityEnabled(db: Db, id: string, enabled: boolean): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query('UPDATE organizations SET eligibility_enabled = $2 WHERE id = $1', [id, enabled]);
    await announceAccessChange(tx);
  });
}

export async function countOrganizations(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM organizations');
  return rows[0]!.n;
}
