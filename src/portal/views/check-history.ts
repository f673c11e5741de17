/**
 * A check's place in the patient's history, on its page: what changed since the earlier check it was
 * compared with ("Coverage changed since <date>"), what later checks found changed since it, and, for a
 * check answered from an earlier one, which one (the payer was not asked again).
 */
import type { CoverageComparison, CoverageHistory } from '../../checks/check-history.ts';
import { describeCoverageChange } from '../../checks/coverage-changes.ts';
import type { EligibilityCheckResponse } from '../../contract/check-response.ts';
import { timestamp } from '../format.ts';
import { html, type SafeHtml } from '../html.ts';

function changeList(c: CoverageComparison): SafeHtml {
  return html`<ul>${c.changes.map((change) => html`<li>${describeCoverageChange(change)}</li>`)}</ul>`;
}

export function coverageHistorySection(history: CoverageHistory | undefined): SafeHtml {
  if (!history || (!history.since && !history.later.length)) return html``;
  const { since, later } = history;
  return html`<section class="panel coverage-changes" aria-labelledby="coverage-changes">
${
  since
    ? html`<h2 id="coverage-changes">Coverage changed since ${timestamp(since.finishedAt)}</h2>
<p>Compared with the <a href="/portal/checks/${since.checkId}">earlier check</a> of this patient with this payer:</p>
${changeList(since)}`
    : html`<h2 id="coverage-changes">Coverage changed after this check</h2>`
}
${later.map(
  (
    c,
  ) => html`<p>A <a href="/portal/checks/${c.checkId}">later check</a> (${timestamp(c.finishedAt)}) found:</p>
${changeList(c)}`,
)}
</section>`;
}

/** The note on a check answered from an earlier one (`meta.reusedFrom`). */
export function reusedNote(r: EligibilityCheckResponse | undefined): SafeHtml {
  const from = r?.meta?.reusedFrom;
  if (!from) return html``;
  return html`<p class="panel" role="note">Answered from an <a href="/portal/checks/${from.id}">earlier check</a>
that finished ${timestamp(from.finishedAt)}: the payer was not asked again.</p>`;
}
