/**
 * Reading an organization's checks for the portal: a page of summaries (newest first, keyset-paginated)
 * and one check in full. Always scoped by organization: another organization's check reads as absent.
 */

import type { StoredCheckRequest } from '../contract/check-request.ts';
import type { CheckStatus, EligibilityCheckResponse, VerdictStatus } from '../contract/check-response.ts';
import { UUID_PATTERN } from '../ids.ts';
import { type CheckSearchTerm, findCheck, selectCheckPage } from '../store/checks.ts';
import type { OwnedLookup, Queryable } from '../store/db.ts';
import { scheduleZone, startOfDay, utcDate8 } from './zoned-dates.ts';

export interface CheckSummary {
  id: string;
  status: CheckStatus;
  /** null while IN_PROGRESS, and for a purged check finished before verdicts were stored. */
  verdict: VerdictStatus | null;
  tradingPartnerServiceId: string;
  /** Last four characters only: the list never shows a whole member id. */
  memberIdLast4: string;
  /** The subscriber as submitted (PHI: shown only to the organization's signed-in users); '' once purged. */
  firstName: string;
  lastName: string;
  /** YYYYMMDD, or '' once purged. */
  dateOfBirth: string;
  outcomeCode: string | null;
  createdAt: string;
  completedAt: string | null;
}

export const VERDICT_STATUSES: readonly VerdictStatus[] = ['ACTIVE', 'INACTIVE', 'UNDETERMINED', 'FAILED'];

export interface CheckFilter {
  status?: CheckStatus;
  verdict?: VerdictStatus;
  /**
   * What the front desk typed to find a patient: words of the name, the member id, the date of birth
   * (YYYYMMDD, YYYY-MM-DD or MM/DD/YYYY), in any order; every word must match. PHI: never logged.
   */
  search?: string;
  tradingPartnerServiceId?: string;
  /**
   * Inclusive ISO dates (YYYY-MM-DD) of the creation time, as days in `timeZone`: a check made at 21:00 in
   * Chicago is on that day there, not on the next (its UTC date).
   */
  from?: string;
  to?: string;
  /** An IANA zone for `from` and `to`; UTC when absent or not one this runtime knows. */
  timeZone?: string | null;
  /** Keyset cursor: the id of the last check of the previous page. */
  before?: string;
  limit?: number;
}

/** YYYYMMDD of an ISO date (YYYY-MM-DD) that is a real day, else undefined. */
function isoDate8(date: string | undefined): string | undefined {
  if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(date)) return undefined;
  const t = new Date(`${date}T00:00:00Z`);
  return Number.isNaN(t.getTime()) || t.toISOString().slice(0, 10) !== date ? undefined : utcDate8(t);
}

/** The day after YYYYMMDD. */
function nextDate8(date: string): string {
  const day = Date.UTC(Number(date.slice(0, 4)), Number(date.slice(4, 6)) - 1, Number(date.slice(6, 8)));
  return utcDate8(new Date(day + 86_400_000));
}

export async function listChecks(
  db: Queryable,
  organizationId: string,
  filter: CheckFilter = {},
): Promise<{ checks: CheckSummary[]; next?: string }> {
  const limit = Math.min(Math.max(filter.limit ?? 25, 1), 100);
  const zone = scheduleZone(filter.timeZone);
  const from = isoDate8(filter.from);
  const to = isoDate8(filter.to);
  const rows = await selectCheckPage(db, organizationId, {
    status: filter.status,
    verdict: filter.verdict && VERDICT_STATUSES.includes(filter.verdict) ? filter.verdict : undefined,
    search: searchTerms(filter.search ?? ''),
    tradingPartnerServiceId: filter.tradingPartnerServiceId,
    createdFrom: from ? startOfDay(from, zone) : undefined,
    createdBefore: to ? startOfDay(nextDate8(to), zone) : undefined,
    before: filter.before && UUID_PATTERN.test(filter.before) ? filter.before : undefined,
    limit: limit + 1,
  });
  const page = rows.slice(0, limit).map((r) => ({
    id: r.id,
    status: r.status as CheckStatus,
    verdict: (r.verdict as VerdictStatus | null) ?? null,
    tradingPartnerServiceId: r.tradingPartnerServiceId,
    memberIdLast4: r.memberId ? r.memberId.slice(-4) : '',
    firstName: r.firstName ?? '',
    lastName: r.lastName ?? '',
    dateOfBirth: r.dateOfBirth ?? '',
    outcomeCode: r.outcomeCode,
    createdAt: r.createdAt.toISOString(),
    completedAt: r.completedAt?.toISOString() ?? null,
  }));
  return rows.length > limit ? { checks: page, next: page[page.length - 1]!.id } : { checks: page };
}

/** At most this many words of a search are used; a name, an id and a date need four. */
const MAX_SEARCH_TERMS = 6;

/** `19800115`, `1980-01-15` or `01/15/1980` as YYYYMMDD; undefined for anything else. */
function dateOf(word: string): string | undefined {
  const iso = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(word);
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(word);
  const [y, m, d] = iso ? [iso[1], iso[2], iso[3]] : us ? [us[3], us[1], us[2]] : [];
  if (!y || !m || !d) return undefined;
  const ymd = `${y}${m.padStart(2, '0')}${d.padStart(2, '0')}`;
  const date = new Date(`${y}-${ymd.slice(4, 6)}-${ymd.slice(6)}T00:00:00Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10).replaceAll('-', '') !== ymd
    ? undefined
    : ymd;
}

/**
 * The words of a search, upper-cased: split on spaces and commas (so "Doe, Jane" works), each cut to the
 * longest value it could match (a member id, 80 characters).
 */
export function searchTerms(text: string): CheckSearchTerm[] {
  return text
    .split(/[\s,]+/)
    .map((w) => w.trim().toUpperCase().slice(0, 80))
    .filter(Boolean)
    .slice(0, MAX_SEARCH_TERMS)
    .map((word) => {
      const dateOfBirth = dateOf(word);
      return dateOfBirth ? { text: word, dateOfBirth } : { text: word };
    });
}

export interface CheckDetail {
  id: string;
  status: CheckStatus;
  request: StoredCheckRequest | null;
  /** The status body (what the API serves), parsed; undefined while IN_PROGRESS. */
  result?: EligibilityCheckResponse;
  attempts: number;
  createdAt: string;
  completedAt: string | null;
}

export const getCheck: OwnedLookup<CheckDetail> = async (db, organizationId, id) => {
  if (!UUID_PATTERN.test(id)) return undefined;
  const r = await findCheck(db, organizationId, id);
  if (!r) return undefined;
  return {
    id: r.id,
    status: r.status as CheckStatus,
    request: r.request,
    result: r.result ? (JSON.parse(r.result) as EligibilityCheckResponse) : undefined,
    attempts: r.attempts,
    createdAt: r.createdAt.toISOString(),
    completedAt: r.completedAt?.toISOString() ?? null,
  };
};
