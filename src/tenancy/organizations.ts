import { MAX_REUSE_WITHIN_HOURS } from '../contract/check-request.ts';
import { prefixedId } from '../ids.ts';
import type { Db, Queryable } from '../store/db.ts';
import {
  insertOrganization,
  updateEligibilityEnabled,
  updateReuseWithinHours,
  updateTimeZone,
} from '../store/organizations.ts';
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

/** The IANA zones this runtime knows (Intl's list, which leaves out the UTC alias), UTC first. */
export function knownTimeZones(): string[] {
  return ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')];
}

export function isKnownTimeZone(zone: string): boolean {
  return knownTimeZones().includes(zone);
}

/** Sets the zone the portal shows the organization's times in; null goes back to each browser's zone. */
export async function setTimeZone(db: Queryable, id: string, zone: string | null): Promise<void> {
  if (zone !== null && !isKnownTimeZone(zone)) throw new RangeError('unknown time zone');
  await updateTimeZone(db, id, zone);
}

/** Whether `hours` is a default reuse window an organization may set (1 to 168 whole hours). */
export function isReuseWindow(hours: number): boolean {
  return Number.isInteger(hours) && hours >= 1 && hours <= MAX_REUSE_WITHIN_HOURS;
}

/**
 * Sets the reuse window of the organization's submits that do not say (issue 17 section 2); null turns
 * reuse off. Applies to checks submitted from now on (each check keeps the window it was submitted with).
 */
export async function setReuseWithinHours(db: Queryable, id: string, hours: number | null): Promise<void> {
  if (hours !== null && !isReuseWindow(hours)) throw new RangeError('reuse window out of range');
  await updateReuseWithinHours(db, id, hours);
}
