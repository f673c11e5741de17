/**
 * The scorecard as its readers show it (the operator API and the portal's Scorecard page): the cards of a
 * window of whole hours, per connection and per payer (a page, most calls first), or of one payer.
 */
import type { Queryable } from '../store/db.ts';
import { readScorecard } from '../store/payer-call-stats.ts';
import { type ScorecardCard, scorecardCard } from './payer-scorecard.ts';

/** Connections are few (the configured ones); a payer's failover list names a handful. */
const MAX_CONNECTIONS = 1000;

/** The start of a window of `hours`: the hour `hours - 1` before the current one (whole hours). */
export function windowStart(hours: number, now = new Date()): Date {
  const hour = Math.floor(now.getTime() / 3_600_000) - (hours - 1);
  return new Date(hour * 3_600_000);
}

export interface ScorecardWindow {
  hours: number;
  since: string;
}

export interface ScorecardOverview {
  window: ScorecardWindow;
  connections: ScorecardCard[];
  payers: { items: ScorecardCard[]; total: number; limit: number; offset: number };
}

export async function scorecardOverview(
  db: Queryable,
  q: { hours: number; limit: number; offset: number },
  now = new Date(),
): Promise<ScorecardOverview> {
  const since = windowStart(q.hours, now);
  const connections = await readScorecard(db, { since, by: 'connection', limit: MAX_CONNECTIONS });
  const payers = await readScorecard(db, { since, by: 'payer', limit: q.limit, offset: q.offset });
  return {
    window: { hours: q.hours, since: since.toISOString() },
    connections: connections.lines.map((l) => scorecardCard(l.key, l)),
    payers: {
      items: payers.lines.map((l) => scorecardCard(l.key, l)),
      total: payers.total,
      limit: q.limit,
      offset: q.offset,
    },
  };
}

export interface PayerScorecard {
  window: ScorecardWindow;
  payer: ScorecardCard;
  connections: ScorecardCard[];
}

/** One payer's card and its cards per connection; undefined when it has no calls in the window. */
export async function payerScorecard(
  db: Queryable,
  payerId: string,
  hours: number,
  now = new Date(),
): Promise<PayerScorecard | undefined> {
  const since = windowStart(hours, now);
  const [total] = (await readScorecard(db, { since, by: 'payer', payerId, limit: 1 })).lines;
  if (!total) return undefined;
  const connections = await readScorecard(db, { since, by: 'connection', payerId, limit: MAX_CONNECTIONS });
  return {
    window: { hours, since: since.toISOString() },
    payer: scorecardCard(total.key, total),
    connections: connections.lines.map((l) => scorecardCard(l.key, l)),
  };
}
