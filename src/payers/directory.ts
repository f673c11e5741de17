/**
 * The payer directory: which trading partner ids the service can reach, and through which connector.
 * A `tradingPartnerServiceId` not listed here (neither an id nor an alias) resolves to undefined and the
 * worker fails the check with SH01 (Payer not supported). Ids match exactly, as clearinghouse payer ids do.
 */
import type { PayerConnector, PayerEntry } from './connector.ts';
import type { ConnectorType } from './directory-schema.ts';
import { SANDBOX_PAYER } from './sandbox/index.ts';
import { createPayerSearch, type PayerSearch, type SearchablePayer } from './search.ts';

export interface PayerDirectory {
  /** The entry an id or an alias names. */
  resolvePayer(tradingPartnerServiceId: string): PayerEntry | undefined;
  /** Every entry, in the order given. */
  readonly entries: readonly PayerEntry[];
  /**
   * Payers ranked for what someone typed (search.ts), best first; every payer in order when the query has
   * no letter or digit. The index is built on the first call and kept with this directory object.
   */
  searchPayers(query: string, limit?: number): ListedPayer[];
  /** Up to `limit` (3) payers closest to an id this directory does not list: SH01's suggestions. */
  closestPayers(unknownId: string, limit?: number): ListedPayer[];
}

export function createPayerDirectory(entries: readonly PayerEntry[]): PayerDirectory {
  const byId = new Map<string, PayerEntry>();
  for (const entry of entries) {
    for (const key of [entry.tradingPartnerServiceId, ...(entry.aliases ?? [])]) {
      if (byId.has(key)) throw new Error(`Payer directory lists ${key} twice`);
      byId.set(key, entry);
    }
  }
  const listed = entries.map(listedPayer);
  let index: PayerSearch<SearchablePayer & { at: number }> | undefined;
  // Built on first use: a directory that nobody searches (a worker-only process) never pays for it.
  const search = () => {
    index ??= createPayerSearch(listed.map((p, at) => ({ ...p, states: entries[at]!.states, at })));
    return index;
  };
  return {
    resolvePayer: (id) => byId.get(id),
    entries: [...entries],
    searchPayers: (query, limit) =>
      search()
        .search(query, limit)
        .map((hit) => listed[hit.payer.at]!),
    closestPayers: (unknownId, limit) =>
      search()
        .closest(unknownId, limit)
        .map((hit) => listed[hit.payer.at]!),
  };
}

/** The directory entry of the built-in sandbox payer (`SANDBOX` → Sandbox Health Plan). */
export function sandboxPayerEntry(connector: PayerConnector): PayerEntry {
  // The sandbox is a test payer: its 270s say so in ISA15, and its results say `applicationMode: sandbox`.
  // It answers every member with the same rows whatever the EQ asks, so it is asked as before: one EQ, and
  // `30` alone when the check names no code (its results stay what clients have tested against).
  return {
    ...SANDBOX_PAYER,
    connector,
    connectorType: 'sandbox',
    envelope: { usageIndicator: 'T' },
    stcStrategy: 'repeat',
    inquiryWithoutCodes: 'plan',
    // It finds a member by first name, last name and date of birth (docs/sandbox.md, "Demographic search").
    demographicSearch: true,
  };
}

/** A payer as listings show it (GET /api/payers, `elig payer list`, the portal): never a URL or a secret. */
export interface ListedPayer {
  id: string;
  name: string;
  aliases: string[];
  connectorType: ConnectorType;
}

export function listedPayer(entry: PayerEntry): ListedPayer {
  return {
    id: entry.tradingPartnerServiceId,
    name: entry.payerName,
    aliases: [...(entry.aliases ?? [])],
    connectorType: entry.connectorType ?? (entry.connector.name as ConnectorType),
  };
}

/**
 * A list's payers ranked for `query` as `PayerDirectory.searchPayers` ranks them (for a list read without a
 * directory, as `elig payer list` reads it); every payer, in order, without a query.
 */
export function findPayers(payers: readonly ListedPayer[], query?: string, limit?: number): ListedPayer[] {
  return createPayerSearch(payers)
    .search(query ?? '', limit)
    .map((hit) => hit.payer);
}
