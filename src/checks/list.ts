/**
 * Reading an organization's checks for the portal: a page of summaries (newest first, keyset-paginated)
 * and one check in full. Always scoped by organization: another organization's check reads as absent.
 */

import type { EligibilityCheckRequest } from '../contract/check-request.ts';
import type { CheckStatus, EligibilityCheckResponse } from '../contract/check-response.ts';
import { UUID_PATTERN } from '../ids.ts';
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
  const where = ['organization_id = $1'];
  const params: unknown[] = [organizationId];
  const add = (clause: string, value: unknown) => {
    params.push(value);
    where.push(clause.replace('?', `$${params.length}`));
  };
  if (filter.status) add('status = ?', filter.status);
  if (filter.tradingPartnerServiceId) add('trading_partner_service_id = ?', filter.tradingPartnerServiceId);
  if (filter.from && /^\d{4}-\d{2}-\d{2}$/.test(filter.from)) add('created_at >= ?::date', filter.from);
  if (filter.to && /^\d{4}-\d{2}-\d{2}$/.test(filter.to)) add('created_at < ?::date + 1', filter.to);
  if (filter.before && UUID_PATTERN.test(filter.before)) add('id < ?', filter.before);
  params.push(limit + 1);
  const { rows } = await db.query<{
    id: string;
    status: CheckStatus;
    trading_partner_service_id: string;
    member_id: string | null;
    outcome_code: string | null;
    created_at: Date;
    completed_at: Date | null;
  }>(
    `SELECT id, status, trading_partner_service_id, request->'subscriber'->>'memberId' AS member_id, outcome_code, created_at, completed_at
       FROM checks WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $${params.length}`,
    params,
  );
  const page = rows.slice(0, limit).map((r) => ({
    id: r.id,
    status: r.status,
    tradingPartnerServiceId: r.trading_partner_service_id,
    memberIdLast4: r.member_id ? r.member_id.slice(-4) : '',
    outcomeCode: r.outcome_code,
    createdAt: r.created_at.toISOString(),
    completedAt: r.completed_at?.toISOString() ?? null,
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
  const { rows } = await db.query<{
    id: string;
    status: CheckStatus;
    request: EligibilityCheckRequest | null;
    result: string | null;
    attempts: number;
    created_at: Date;
    completed_at: Date | null;
  }>(
    'SELECT id, status, request, result, attempts, created_at, completed_at FROM checks WHERE id = $1 AND organization_id = $2',
    [id, organizationId],
  );
  const r = rows[0];
  if (!r) return undefined;
  return {
    id: r.id,
    status: r.status,
    request: r.request,
    result: r.result ? (JSON.parse(r.result) as EligibilityCheckResponse) : undefined,
    attempts: r.attempts,
    createdAt: r.created_at.toISOString(),
    completedAt: r.completed_at?.toISOString() ?? null,
  };
}
