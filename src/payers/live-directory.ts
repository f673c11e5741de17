/**
 * The directory a running service reads: one immutable PayerDirectory at a time, replaced whole on a
 * reload or an import (src/directory/service.ts). A check in flight keeps the entry it resolved; the next
 * lookup sees the new directory. Nothing waits on a swap.
 */
import type { PayerEntry } from './connector.ts';
import type { ListedPayer, PayerDirectory } from './directory.ts';

export class LiveDirectory implements PayerDirectory {
  constructor(private current: PayerDirectory) {}

  swap(next: PayerDirectory): void {
    this.current = next;
  }

  resolvePayer(tradingPartnerServiceId: string): PayerEntry | undefined {
    return this.current.resolvePayer(tradingPartnerServiceId);
  }

  get entries(): readonly PayerEntry[] {
    return this.current.entries;
  }

  searchPayers(query: string, limit?: number): ListedPayer[] {
    return this.current.searchPayers(query, limit);
  }

  closestPayers(unknownId: string, limit?: number): ListedPayer[] {
    return this.current.closestPayers(unknownId, limit);
  }
}
