/**
 * The organization's providers (issue 26 item 13): the names and NPIs the portal's run-a-check form offers,
 * so front desk staff pick a provider instead of typing an NPI on every check. Owners keep the list on the
 * organization page. While the list is not empty exactly one provider is the default: the first one added
 * is, and when the default is removed the first remaining one becomes it.
 *
 * The NPI's check digit is the API's rule (checks/request.ts `isValidNpi`), which the portal applies before
 * calling here; this module keeps the shape (10 digits, a name the API accepts) and the list's rules.
 */
import type { Db } from '../store/db.ts';
import {
  findProviders,
  findProvidersForUpdate,
  type OrganizationRow,
  updateProviders,
} from '../store/organizations.ts';

export type OrganizationProvider = OrganizationRow['providers'][number];

/** A short list: the form shows them all in one select. */
export const MAX_PROVIDERS = 20;
/** The API's longest `provider.organizationName`. */
export const MAX_PROVIDER_NAME = 60;

export type ProviderChange = { ok: true } | { ok: false; reason: 'duplicate' | 'full' | 'unknown' };

/** The organization's providers in the order they were added ([] when none, or no such organization). */
export async function listProviders(db: Db, organizationId: string): Promise<OrganizationProvider[]> {
  return (await findProviders(db, organizationId))?.providers ?? [];
}

/** The provider the form preselects: the default one, if the list has any. */
export function defaultProvider(
  providers: readonly OrganizationProvider[],
): OrganizationProvider | undefined {
  return providers.find((p) => p.isDefault);
}

/** Whether `name` and `npi` have the shape a check request needs (the NPI check digit is the caller's). */
export function isProviderShape(name: string, npi: string): boolean {
  const n = name.trim();
  return n.length >= 1 && n.length <= MAX_PROVIDER_NAME && /^[0-9]{10}$/.test(npi);
}

/** Reads, changes and writes the list in one transaction that holds the organization's row. */
async function change(
  db: Db,
  organizationId: string,
  edit: (list: OrganizationProvider[]) => OrganizationProvider[] | ProviderChange,
): Promise<ProviderChange> {
  return db.transaction(async (tx) => {
    const row = await findProvidersForUpdate(tx, organizationId);
    if (!row) return { ok: false, reason: 'unknown' };
    const next = edit(row.providers);
    if (!Array.isArray(next)) return next;
    // Exactly one default while the list is not empty.
    const withDefault =
      next.length && !next.some((p) => p.isDefault)
        ? next.map((p, i) => ({ ...p, isDefault: i === 0 }))
        : next;
    await updateProviders(tx, organizationId, withDefault);
    return { ok: true };
  });
}

/** Adds a provider (an NPI appears once); `isDefault` makes it the default in place of the current one. */
export function addProvider(
  db: Db,
  organizationId: string,
  provider: { name: string; npi: string; isDefault: boolean },
): Promise<ProviderChange> {
  if (!isProviderShape(provider.name, provider.npi)) throw new RangeError('provider name or NPI malformed');
  const added: OrganizationProvider = {
    name: provider.name.trim(),
    npi: provider.npi,
    isDefault: provider.isDefault,
  };
  return change(db, organizationId, (list) => {
    if (list.some((p) => p.npi === added.npi)) return { ok: false, reason: 'duplicate' };
    if (list.length >= MAX_PROVIDERS) return { ok: false, reason: 'full' };
    return [...list.map((p) => (added.isDefault ? { ...p, isDefault: false } : p)), added];
  });
}

/** Removes the provider with this NPI; removing the default makes the first remaining one the default. */
export function removeProvider(db: Db, organizationId: string, npi: string): Promise<ProviderChange> {
  return change(db, organizationId, (list) =>
    list.some((p) => p.npi === npi) ? list.filter((p) => p.npi !== npi) : { ok: false, reason: 'unknown' },
  );
}

/** Makes the provider with this NPI the default. */
export function setDefaultProvider(db: Db, organizationId: string, npi: string): Promise<ProviderChange> {
  return change(db, organizationId, (list) =>
    list.some((p) => p.npi === npi)
      ? list.map((p) => ({ ...p, isDefault: p.npi === npi }))
      : { ok: false, reason: 'unknown' },
  );
}
