import { prefixedId } from '../ids.ts';
import type { Queryable } from '../store/db.ts';

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

export async function setEligibilityEnabled(db: Queryable, id: string, enabled: boolean): Promise<void> {
  await db.query('UPDATE organizations SET eligibility_enabled = $2 WHERE id = $1', [id, enabled]);
}

export async function countOrganizations(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM organizations');
  return rows[0]!.n;
}
