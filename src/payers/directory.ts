/**
 * The payer directory: which trading partner ids the service can reach, and through which connector.
 * A `tradingPartnerServiceId` not listed here resolves to undefined and the worker fails the check with
 * SH01 (Payer not supported). Ids match exactly, as clearinghouse payer ids do.
 */
import type { PayerConnector, PayerEntry } from './connector.ts';
import { SANDBOX_PAYER } from './sandbox/index.ts';

export interface PayerDirectory {
  resolvePayer(tradingPartnerServiceId: string): PayerEntry | undefined;
  /** Every entry, in the order given. */
  readonly entries: readonly PayerEntry[];
}

export function createPayerDirectory(entries: readonly PayerEntry[]): PayerDirectory {
  const byId = new Map<string, PayerEntry>();
  for (const entry of entries) {
    if (byId.has(entry.tradingPartnerServiceId)) {
      throw new Error(`Payer directory lists ${entry.tradingPartnerServiceId} twice`);
    }
    byId.set(entry.tradingPartnerServiceId, entry);
  }
  return {
    resolvePayer: (id) => byId.get(id),
    entries: [...entries],
  };
}

/** The directory entry of the built-in sandbox payer (`SANDBOX` → Sandbox Health Plan). */
export function sandboxPayerEntry(connector: PayerConnector): PayerEntry {
  return { ...SANDBOX_PAYER, connector };
}
