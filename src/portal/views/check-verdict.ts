/**
 * The top of a check page: the verdict in its colour and words, what the service corrected in the request,
 * and the plan's amounts shown once. Colour never stands alone: the banner says the verdict in words too.
 */
import { type PlanAmounts, planAmountsOf } from '../../checks/plan-amounts.ts';
import { verdictOf } from '../../checks/verdict.ts';
import type { EligibilityCheckResponse, Verdict, VerdictStatus } from '../../contract/check-response.ts';
import { money } from '../format.ts';
import { html, type SafeHtml } from '../html.ts';

const VERDICT_LABELS: Record<VerdictStatus, string> = {
  ACTIVE: 'Active',
  INACTIVE: 'Inactive',
  UNDETERMINED: 'Undetermined',
  FAILED: 'Failed',
};

/** The stored verdict, or one read off a body stored before the field existed. */
export function verdictOfResult(r: EligibilityCheckResponse): Verdict | undefined {
  return r.verdict ?? verdictOf(r);
}

export function verdictBadge(v: Verdict): SafeHtml {
  return html`<span class="badge verdict-badge verdict-${v.status.toLowerCase()}">${VERDICT_LABELS[v.status]}</span>`;
}

export function verdictBanner(v: Verdict): SafeHtml {
  return html`<div class="verdict verdict-${v.status.toLowerCase()}" role="status" data-verdict="${v.status}">
<span class="verdict-label">${VERDICT_LABELS[v.status]}</span>
<p class="verdict-summary">${v.summary}</p>
</div>`;
}

/**
 * A repair the service made to the request before sending it (issue 16 section 3). Read defensively: the
 * field is added to the result by the request-repair change, and older bodies have none.
 */
export interface RequestCorrection {
  field: string;
  code: string;
  description: string;
}

export function correctionsOf(r: EligibilityCheckResponse): RequestCorrection[] {
  const list: unknown = Reflect.get(r, 'requestCorrections');
  if (!Array.isArray(list)) return [];
  return list.filter(
    (c): c is RequestCorrection =>
      typeof c === 'object' &&
      c !== null &&
      typeof c.field === 'string' &&
      typeof c.code === 'string' &&
      typeof c.description === 'string',
  );
}

export function correctionsBox(corrections: RequestCorrection[]): SafeHtml {
  if (!corrections.length) return html``;
  return html`<section class="panel corrections" aria-labelledby="corrections"><h2 id="corrections">We corrected your request</h2>
<p class="muted">The payer would have refused these as sent; the check went out with them corrected.</p>
<ul>${corrections.map((c) => html`<li><code>${c.field}</code>: ${c.description}</li>`)}</ul></section>`;
}

function amountCell(total: number | null, remaining: number | null): SafeHtml {
  if (total === null && remaining === null) return html`<td>${money(null)}</td>`;
  return html`<td>${money(total)}${remaining !== null ? html`<br><span class="muted">${money(remaining)} left</span>` : ''}</td>`;
}

const NETWORK_NOTE: Record<PlanAmounts['network'], string> = {
  in: 'In-network amounts.',
  out: 'Out-of-network amounts (the payer sent no in-network ones).',
  unstated: 'The payer did not say whether these are in- or out-of-network amounts.',
};

/** Deductible and out-of-pocket maximum, individual and family, with what is left: once, for the plan. */
export function planAmountsSection(r: EligibilityCheckResponse): SafeHtml {
  const a = planAmountsOf(r);
  if (!a) return html``;
  return html`<section aria-labelledby="amounts"><h2 id="amounts">Plan amounts</h2>
<div class="table-wrap" role="region" aria-labelledby="amounts" tabindex="0"><table class="plan-amounts">
<thead><tr><th scope="col"></th><th scope="col">Individual</th><th scope="col">Family</th></tr></thead>
<tbody>
<tr><th scope="row">Deductible</th>${amountCell(a.deductible.individual.total, a.deductible.individual.remaining)}${amountCell(a.deductible.family.total, a.deductible.family.remaining)}</tr>
<tr><th scope="row">Out-of-pocket maximum</th>${amountCell(a.outOfPocket.individual.total, a.outOfPocket.individual.remaining)}${amountCell(a.outOfPocket.family.total, a.outOfPocket.family.remaining)}</tr>
</tbody></table></div>
<p class="muted">${NETWORK_NOTE[a.network]} They apply to every service type below unless its row says otherwise.</p>
</section>`;
}
