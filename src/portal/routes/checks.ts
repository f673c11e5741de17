/**
 * Checks: the organization's list (newest first, a patient search, filters, keyset pages, member ids cut
 * to their last four characters) and one check in full.
 *
 * The search (`q`: name, member id, date of birth) is PHI in the query string. It runs in the database
 * within the signed-in user's organization only; Fastify's request logging is off and the log serializer
 * drops query strings (src/log.ts), pages are `no-store` and `Referrer-Policy: no-referrer`, and a
 * signed-out visitor is sent to sign in without the query. test/portal/checks-search.test.ts greps the
 * logs for the terms.
 */

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { coverageHistory } from '../../checks/check-history.ts';
import {
  type CheckFilter,
  type CheckSummary,
  getCheck,
  listChecks,
  VERDICT_STATUSES,
} from '../../checks/list.ts';
import { scheduleZone } from '../../checks/zoned-dates.ts';
import type { CheckStatus, VerdictStatus } from '../../contract/check-response.ts';
import type { PortalSession } from '../../tenancy/sessions.ts';
import { IdParams, notFound, noticeOf, type PortalDeps, sendPage, session } from '../context.ts';
import { statusBadge, timestamp, x12Date } from '../format.ts';
import { queryValue } from '../forms.ts';
import { html, type SafeHtml } from '../html.ts';
import { page } from '../layout.ts';
import { checkDetailPage } from '../views/check-detail.ts';
import { checkPdf, checkPrintPage } from '../views/check-print.ts';

const STATUSES: [CheckStatus | '', string][] = [
  ['', 'Any status'],
  ['IN_PROGRESS', 'In progress'],
  ['COMPLETED', 'Completed'],
  ['FAILED', 'Failed'],
];
const VERDICTS: [VerdictStatus | '', string][] = [
  ['', 'Any verdict'],
  ['ACTIVE', 'Active'],
  ['INACTIVE', 'Inactive'],
  ['UNDETERMINED', 'Undetermined'],
  ['FAILED', 'Failed'],
];
const PAGE_SIZE = 25;

interface Filters {
  /** The patient search (PHI). */
  q: string;
  verdict: VerdictStatus | '';
  status: CheckStatus | '';
  payer: string;
  from: string;
  to: string;
  /** The browser's zone, sent by portal.js when the organization has none: the days of `from` and `to`. */
  tz: string;
}

/** An IANA zone name this runtime knows, else '' (the form's hidden field is the browser's to fill). */
function browserZone(zone: string): string {
  return /^[A-Za-z0-9_+\-/]{1,64}$/.test(zone) && scheduleZone(zone) === zone ? zone : '';
}

function readFilters(q: (name: string) => string): Filters {
  const status = q('status');
  const date = (v: string) => (/^\d{4}-\d{2}-\d{2}$/.test(v) ? v : '');
  const payer = q('payer').trim();
  const verdict = q('verdict');
  return {
    q: q('q').trim().slice(0, 200),
    verdict: VERDICT_STATUSES.includes(verdict as VerdictStatus) ? (verdict as VerdictStatus) : '',
    status: STATUSES.some(([s]) => s === status) ? (status as CheckStatus | '') : '',
    payer: /^[A-Za-z0-9._-]{1,50}$/.test(payer) ? payer : '',
    from: date(q('from')),
    to: date(q('to')),
    tz: browserZone(q('tz')),
  };
}

function query(f: Filters, before?: string): string {
  const params = new URLSearchParams();
  if (f.q) params.set('q', f.q);
  if (f.verdict) params.set('verdict', f.verdict);
  if (f.status) params.set('status', f.status);
  if (f.payer) params.set('payer', f.payer);
  if (f.from) params.set('from', f.from);
  if (f.to) params.set('to', f.to);
  if (f.tz && (f.from || f.to)) params.set('tz', f.tz);
  if (before) params.set('before', before);
  const text = params.toString();
  return text ? `?${text}` : '';
}

function filterForm(f: Filters): SafeHtml {
  return html`<form method="get" action="/portal/checks" class="filters" role="search" aria-label="Find checks">
  <div class="field search"><label for="f-q">Patient</label><input id="f-q" name="q" type="search" value="${f.q}" placeholder="Name, member id or date of birth" autocomplete="off" spellcheck="false" maxlength="200"></div>
  <div class="field"><label for="f-verdict">Verdict</label><select id="f-verdict" name="verdict">${VERDICTS.map(
    ([value, label]) =>
      html`<option value="${value}"${value === f.verdict ? html` selected` : ''}>${label}</option>`,
  )}</select></div>
  <div class="field"><label for="f-status">Status</label><select id="f-status" name="status">${STATUSES.map(
    ([value, label]) =>
      html`<option value="${value}"${value === f.status ? html` selected` : ''}>${label}</option>`,
  )}</select></div>
  <div class="field"><label for="f-payer">Payer id</label><input id="f-payer" name="payer" value="${f.payer}" placeholder="SANDBOX" autocomplete="off"></div>
  <div class="field"><label for="f-from">From</label><input id="f-from" name="from" type="date" value="${f.from}"></div>
  <div class="field"><label for="f-to">To</label><input id="f-to" name="to" type="date" value="${f.to}"></div>
  <input type="hidden" name="tz" value="${f.tz}" data-browser-zone>
  <div class="field buttons"><button type="submit" class="secondary">Search</button> <a href="/portal/checks">Clear</a></div>
</form>`;
}

const VERDICT_LABELS: Record<VerdictStatus, string> = {
  ACTIVE: 'Active',
  INACTIVE: 'Inactive',
  UNDETERMINED: 'Undetermined',
  FAILED: 'Failed',
};

/** The verdict as a badge; a check in progress has none yet, a purged old one shows its status. */
function verdictBadge(c: CheckSummary): SafeHtml {
  if (!c.verdict) return statusBadge(c.status);
  return html`<span class="badge badge-${c.verdict.toLowerCase()}">${VERDICT_LABELS[c.verdict]}</span>`;
}

function patient(c: CheckSummary): string {
  return [c.lastName, c.firstName].filter(Boolean).join(', ');
}

function checkRows(checks: CheckSummary[], searched: boolean): SafeHtml {
  if (!checks.length) {
    return searched
      ? html`<p>No checks match this search. Try the last name alone, the member id as on the card, or the date of birth (YYYY-MM-DD).</p>`
      : html`<p>No checks match. <a href="/portal/checks/new">Run a check</a>.</p>`;
  }
  return html`<div class="table-wrap" role="region" aria-label="Checks" tabindex="0"><table class="checks">
<thead><tr><th scope="col">Submitted</th><th scope="col">Patient</th><th scope="col">Date of birth</th><th scope="col">Member id</th><th scope="col">Payer</th><th scope="col">Verdict</th><th scope="col">Outcome</th><th scope="col">Finished</th></tr></thead>
<tbody>${checks.map(
    (c) => html`<tr>
<th scope="row"><a href="/portal/checks/${c.id}">${timestamp(c.createdAt)}<span class="sr-only"> (open check)</span></a></th>
<td>${patient(c)}</td>
<td>${c.dateOfBirth ? x12Date(c.dateOfBirth) : ''}</td>
<td><span class="mono">${c.memberIdLast4 ? `••••${c.memberIdLast4}` : ''}</span></td>
<td>${c.tradingPartnerServiceId}</td>
<td>${verdictBadge(c)}</td>
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
${checkRows(result.checks, Boolean(f.q))}
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
    if (f.q) filter.search = f.q;
    if (f.verdict) filter.verdict = f.verdict;
    if (f.status) filter.status = f.status;
    if (f.payer) filter.tradingPartnerServiceId = f.payer;
    if (f.from) filter.from = f.from;
    if (f.to) filter.to = f.to;
    // The days are the organization's, as its times are shown; else the browser's (see readFilters).
    filter.timeZone = s.organizationTimeZone ?? (f.tz || null);
    if (before) filter.before = before;
    const result = await listChecks(deps.db, s.user.organizationId, filter);
    return sendPage(reply, listPage(s, f, result, Boolean(before), noticeOf(request)));
  });

  portal.get('/checks/:id', { schema: { params: IdParams } }, async (request, reply) => {
    const s = session(request);
    const check = await getCheck(deps.db, s.user.organizationId, request.params.id);
    if (!check) return notFound(request, reply);
    const history = await coverageHistory(deps.db, s.user.organizationId, check.id);
    return sendPage(reply, checkDetailPage(s, check, noticeOf(request), history));
  });

  // The check for the chart: a printable page and a PDF of the same content (views/check-print.ts).
  portal.get('/checks/:id/print', { schema: { params: IdParams } }, async (request, reply) => {
    const s = session(request);
    const check = await getCheck(deps.db, s.user.organizationId, request.params.id);
    if (!check) return notFound(request, reply);
    const ctx = { organizationName: s.organizationName, printedAt: new Date().toISOString() };
    return sendPage(reply, checkPrintPage(check, ctx));
  });

  portal.get('/checks/:id/print.pdf', { schema: { params: IdParams } }, async (request, reply) => {
    const s = session(request);
    const check = await getCheck(deps.db, s.user.organizationId, request.params.id);
    if (!check) return notFound(request, reply);
    const ctx = { organizationName: s.organizationName, printedAt: new Date().toISOString() };
    return reply
      .type('application/pdf')
      .header('content-disposition', `attachment; filename="eligibility-check-${check.id}.pdf"`)
      .send(checkPdf(check, ctx));
  });
};
