/**
 * The payer directory: which trading partner ids the service can reach, and through which connector.
 * A `tradingPartnerServiceId` not listed here (neither an id nor an alias) resolves to undefined and the
 * worker fails the check with SH01 (Payer not supported). Ids match exactly, as clearinghouse payer ids do.
 */
import type { PayerConnector, PayerEntry } from './connector.ts';
import type { ConnectorType } from './directory-schema.ts';
import { SANDBOX_PAYER } from './sandbox/index.ts';

export interface PayerDirectory {
  /** The entry an id or an alias names. */
  resolvePayer(tradingPartnerServiceId: string): PayerEntry | undefined;
  /** Every entry, in the order given. */
  readonly entries: readonly PayerEntry[];
}

export function createPayerDirectory(entries: readonly PayerEntry[]): PayerDirectory {
  const byId = new Map<string, PayerEntry>();
  for (const entry of entries) {
    for (const key of [entry.tradingPartnerServiceId, ...(entry.aliases ?? [])]) {
      if (byId.has(key)) throw new Error(`Payer directory lists ${key} twice`);
      byId.set(key, entry);
    }
  }
  return {
    resolvePayer: (id) => byId.get(id),
    entries: [...entries],
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

/** Payers whose id, alias or name contains `query`, ignoring case; every payer without a query. */
export function findPayers(payers: readonly ListedPayer[], query?: string): ListedPayer[] {
  const q = query?.trim().toLowerCase();
  if (!q) return [...payers];
  return payers.filter(
    (p) =>
      p.id.toLowerCase().includes(q) ||
      p.name.toLowerCase().includes(q) ||
      p.aliases.some((a) => a.toLowerCase().includes(q)),
  );
}
