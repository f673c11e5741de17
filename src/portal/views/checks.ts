/**
 * The Checks list as a person reads it: the patient search and filters, a page of checks (member ids cut to
 * their last four characters) and the links to newer and older pages.
 */
import type { CheckSummary } from '../../checks/list.ts';
import type { CheckStatus, VerdictStatus } from '../../contract/check-response.ts';
import type { PortalSession } from '../../tenancy/sessions.ts';
import { statusBadge, timestamp, x12Date } from '../format.ts';
import { html, type SafeHtml } from '../html.ts';
import { page } from '../layout.ts';

/** The status filter's choices ('' for any), which are also the statuses a query may ask for. */
export const STATUSES: [CheckStatus | '', string][] = [
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

/** The list's search and filters, as read from the query string. */
export interface Filters {
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

/** The list's address under these filters, from a page cursor when given. */
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

/** A page of the organization's checks, newest first, under the search and filter form. */
export function checksPage(
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
