/**
 * Reading an organization's checks for the portal: a page of summaries (newest first, keyset-paginated)
 * and one check in full. Always scoped by organization: another organization's check reads as absent.
 */

import type { EligibilityCheckRequest } from '../contract/check-request.ts';
import type { CheckStatus, EligibilityCheckResponse } from '../contract/check-response.ts';
import { UUID_PATTERN } from '../ids.ts';
import { findCheck, selectCheckPage } from '../store/checks.ts';
import type { Queryable } from '../store/db.ts';

export interface CheckSummary {
  id: string;
  status: CheckStatus;
  tradingPartnerServiceId: string;
  /** Last four characters only: the list never shows a whole member id. */
  memberIdLast4: string;
  outcomeCode: string | null;
  createdAt: string;
  completedAt: string | null;
}

export interface CheckFilter {
  status?: CheckStatus;
  tradingPartnerServiceId?: string;
  /** Inclusive ISO dates (YYYY-MM-DD) on the creation time, UTC. */
  from?: string;
  to?: string;
  /** Keyset cursor: the id of the last check of the previous page. */
  before?: string;
  limit?: number;
}

export async function listChecks(
  db: Queryable,
  organizationId: string,
  filter: CheckFilter = {},
): Promise<{ checks: CheckSummary[]; next?: string }> {
  const limit = Math.min(Math.max(filter.limit ?? 25, 1), 100);
  const isoDate = (d: string | undefined) => (d && /^\d{4}-\d{2}-\d{2}$/.test(d) ? d : undefined);
  const rows = await selectCheckPage(db, organizationId, {
    status: filter.status,
    tradingPartnerServiceId: filter.tradingPartnerServiceId,
    from: isoDate(filter.from),
    to: isoDate(filter.to),
    before: filter.before && UUID_PATTERN.test(filter.before) ? filter.before : undefined,
    limit: limit + 1,
  });
  const page = rows.slice(0, limit).map((r) => ({
    id: r.id,
    status: r.status as CheckStatus,
    tradingPartnerServiceId: r.tradingPartnerServiceId,
    memberIdLast4: r.memberId ? r.memberId.slice(-4) : '',
    outcomeCode: r.outcomeCode,
    createdAt: r.createdAt.toISOString(),
    completedAt: r.completedAt?.toISOString() ?? null,
  }));
  return rows.length > limit ? { checks: page, next: page[page.length - 1]!.id } : { checks: page };
}

export interface CheckDetail {
  id: string;
  status: CheckStatus;
  request: EligibilityCheckRequest | null;
  /** The status body (what the API serves), parsed; undefined while IN_PROGRESS. */
  result?: EligibilityCheckResponse;
  attempts: number;
  createdAt: string;
  completedAt: string | null;
}

export async function getCheck(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<CheckDetail | undefined> {
  if (!UUID_PATTERN.test(id)) return undefined;
  const r = await findCheck(db, organizationId, id);
  if (!r) return undefined;
  return {
    id: r.id,
    status: r.status as CheckStatus,
    request: r.request as EligibilityCheckRequest | null,
    result: r.result ? (JSON.parse(r.result) as EligibilityCheckResponse) : undefined,
    attempts: r.attempts,
    createdAt: r.createdAt.toISOString(),
    completedAt: r.completedAt?.toISOString() ?? null,
  };
}
