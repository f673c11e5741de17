/**
 * Reading a discovery: its progress and the coverages found so far, ranked (contract/discovery.ts). Another
 * organization's discovery reads as absent.
 */
import { type Discovery, discoveryOf } from '../contract/discovery.ts';
import type { Queryable } from '../store/db.ts';
import { findDiscovery, selectDiscoveryFound } from '../store/discoveries.ts';

export async function readDiscovery(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<Discovery | undefined> {
  const row = await findDiscovery(db, organizationId, id);
  if (!row) return undefined;
  return discoveryOf(row, await selectDiscoveryFound(db, id));
}
