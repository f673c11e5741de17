import { prefixedId } from '../ids.ts';
import type { Db, Queryable } from '../store/db.ts';
import { insertOrganization, updateEligibilityEnabled } from '../store/organizations.ts';
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
  await insertOrganization(db, { id, name: trimmed });
  return { id, name: trimmed, eligibilityEnabled: true };
}

/** Keys of the organization answer 403 (or work again) in every process once this commits. */
export async function setEligibilityEnabled(db: Db, id: string, enabled: boolean): Promise<void> {
  await db.transaction(async (tx) => {
    await updateEligibilityEnabled(tx, id, enabled);
    await announceAccessChange(tx);
  });
}
