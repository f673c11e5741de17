/**
 * Checks: the organization's list (newest first, filters, keyset pages, member ids cut to their last four
 * characters) and one check in full. Filters travel in the query string; none of them is PHI.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type CheckFilter, type CheckSummary, getCheck, listChecks } from '../../checks/list.ts';
import type { CheckStatus } from '../../contract/check-response.ts';
import type { PortalSession } from '../../tenancy/sessions.ts';
import { IdParams, notFound, type PortalDeps, queryValue, sendPage, session } from '../context.ts';
import { statusBadge, timestamp } from '../format.ts';
import { html, type SafeHtml } from '../html.ts';
import { page } from '../layout.ts';
import { noticeFor } from '../notices.ts';
import { checkDetailPage } from '../views/check-detail.ts';

const STATUSES: [CheckStatus | '', string][] = [
  ['', 'Any status'],
  ['IN_PROGRESS', 'In progress'],
  ['COMPLETED', 'Completed'],
  ['FAILED', 'Failed'],
];
const PAGE_SIZE = 25;

interface Filters {
  status: CheckStatus | '';
  payer: string;
  from: string;
  to: string;
}

function readFilters(q: (name: string) => string): Filters {
  const status = q('status');
  const date = (v: string) => (/^\d{4}-\d{2}-\d{2}$/.test(v) ? v : '');
  const payer = q('payer').trim();
  return {
    status: STATUSES.some(([s]) => s === status) ? (status as CheckStatus | '') : '',
    payer: /^[A-Za-z0-9._-]{1,50}$/.test(payer) ? payer : '',
    from: date(q('from')),
    to: date(q('to')),
  };
}

function query(f: Filters, before?: string): string {
  const params = new URLSearchParams();
  if (f.status) params.set('status', f.status);
  if (f.payer) params.set('payer', f.payer);
  if (f.from) params.set('from', f.from);
  if (f.to) params.set('to', f.to);
  if (before) params.set('before', before);
  const text = params.toString();
  return text ? `?${text}` : '';
}

function filterForm(f: Filters): SafeHtml {
  return html`<form method="get" action="/portal/checks" class="filters" aria-label="Filter checks">
  <div class="field"><label for="f-status">Status</label><select id="f-status" name="status">${STATUSES.map(
    ([value, label]) =>
      html`<option value="${value}"${value === f.status ? html` selected` : ''}>${label}</option>`,
  )}</select></div>
  <div class="field"><label for="f-payer">Payer id</label><input id="f-payer" name="payer" value="${f.payer}" placeholder="SANDBOX" autocomplete="off"></div>
  <div class="field"><label for="f-from">From</label><input id="f-from" name="from" type="date" value="${f.from}"></div>
  <div class="field"><label for="f-to">To</label><input id="f-to" name="to" type="date" value="${f.to}"></div>
  <div class="field buttons"><button type="submit" class="secondary">Filter</button> <a href="/portal/checks">Clear</a></div>
</form>`;
}

function checkRows(checks: CheckSummary[]): SafeHtml {
  if (!checks.length) return html`<p>No checks match. <a href="/portal/checks/new">Run a check</a>.</p>`;
  return html`<div class="table-wrap" role="region" aria-label="Checks" tabindex="0"><table>
<thead><tr><th scope="col">Submitted</th><th scope="col">Status</th><th scope="col">Payer</th><th scope="col">Member id</th><th scope="col">Outcome</th><th scope="col">Finished</th></tr></thead>
<tbody>${checks.map(
    (c) => html`<tr>
<th scope="row"><a href="/portal/checks/${c.id}">${timestamp(c.createdAt)}<span class="sr-only"> (open check)</span></a></th>
<td>${statusBadge(c.status)}</td>
<td>${c.tradingPartnerServiceId}</td>
<td><span class="mono">${c.memberIdLast4 ? `••••${c.memberIdLast4}` : ''}</span></td>
<td>${c.outcomeCode ? html`<code>${c.outcomeCode}</code>` : ''}</td>
<td>${c.completedAt ? timestamp(c.completedAt) : ''}</td>
</tr>`,
  )}</tbody></table></div>`;
}

function listPage(
  s: PortalSession,
  f: Filters,
  result: { checks: CheckSummary[]; next?: string },
  paged: boolean,
  notice: string | undefined,
): SafeHtml {
  return page({
    title: 'Checks',
    session: s,
    current: 'checks',
    notice,
    body: html`<div class="heading-row"><h1>Checks</h1><a class="button" href="/portal/checks/new">Run a check</a></div>
${filterForm(f)}
${checkRows(result.checks)}
<nav aria-label="Pages" class="pager">${paged ? html`<a href="/portal/checks${query(f)}">Newest</a>` : ''}${
      result.next ? html`<a href="/portal/checks${query(f, result.next)}">Older checks</a>` : ''
    }</nav>`,
  });
}

export const checkRoutes: FastifyPluginAsyncTypebox<PortalDeps> = async (portal, deps) => {
  portal.get('/checks', async (request, reply) => {
    const s = session(request);
    const f = readFilters((name) => queryValue(request, name));
    const before = queryValue(request, 'before');
    const filter: CheckFilter = { limit: PAGE_SIZE };
    if (f.status) filter.status = f.status;
    if (f.payer) filter.tradingPartnerServiceId = f.payer;
    if (f.from) filter.from = f.from;
    if (f.to) filter.to = f.to;
    if (before) filter.before = before;
    const result = await listChecks(deps.db, s.user.organizationId, filter);
    return sendPage(reply, listPage(s, f, result, Boolean(before), noticeFor(queryValue(request, 'notice'))));
  });

  portal.get('/checks/:id', { schema: { params: IdParams } }, async (request, reply) => {
    const s = session(request);
    const check = await getCheck(deps.db, s.user.organizationId, request.params.id);
    if (!check) return notFound(request, reply);
    return sendPage(reply, checkDetailPage(s, check, noticeFor(queryValue(request, 'notice'))));
  });
};
