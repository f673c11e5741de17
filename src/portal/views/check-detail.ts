/**
 * One eligibility check as a front desk reads it: the verdict first, in its colour and words; for a failed
 * check, what went wrong and how to fix it; the plan's amounts once, then whether each of the seven service
 * types is covered and what the patient pays; who and which plan; the raw JSON and X12 folded away.
 */
import type { CoverageHistory } from '../../checks/check-history.ts';
import { type CollectSummary, collectAtDesk } from '../../checks/collect-summary.ts';
import type { CheckDetail } from '../../checks/list.ts';
import { entryRepeatsPlan, type PlanAmounts, planAmountsOf } from '../../checks/plan-amounts.ts';
import { otherCoverageTable, payerText, personName, providerText } from '../../checks/summary.ts';
import type { BenefitEntry, EligibilityCheckResponse, Verdict } from '../../contract/check-response.ts';
import type { PortalSession } from '../../tenancy/sessions.ts';
import { count, money, notStated, percent, statusBadge, timestamp, x12Date, yesNo } from '../format.ts';
import { type HtmlValue, html, type SafeHtml } from '../html.ts';
import { page } from '../layout.ts';
import { type CollectForm, collectPanel, EMPTY_COLLECT_FORM } from './check-collect.ts';
import { dependentsSection, errorsSection } from './check-errors.ts';
import { coverageHistorySection, reusedNote } from './check-history.ts';
import {
  correctionsBox,
  correctionsOf,
  planAmountsSection,
  verdictBadge,
  verdictBanner,
  verdictOfResult,
} from './check-verdict.ts';
import { EMPTY_MONITOR_FORM, monitorForm } from './monitors.ts';

const REFRESH_SECONDS = 3;

/** Label and value pairs; a value that is absent is left out rather than shown as a dash. */
function facts(rows: [string, HtmlValue][]): SafeHtml {
  const present = rows.filter(([, v]) => v !== undefined && v !== null && v !== '');
  return html`<dl class="facts">${present.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;
}

function withRemaining(total: number | null | undefined, remaining: number | null | undefined): SafeHtml {
  if (total == null && remaining == null) return html`${notStated()}`;
  return html`${money(total)}${remaining != null ? html`<br><span class="muted">${money(remaining)} left</span>` : ''}`;
}

function family(total: number | null | undefined, remaining: number | null | undefined): SafeHtml {
  if (total == null) return html``;
  return html`<br><span class="muted">Family ${money(total)}${remaining != null ? html` (${money(remaining)} left)` : ''}</span>`;
}

function coverage(b: BenefitEntry): SafeHtml {
  const status = b.coverageStatus ?? 'Not stated';
  const cls = status === 'Active Coverage' ? 'active' : status === 'Not Covered' ? 'not-covered' : 'unknown';
  const network = b.inNetwork === true ? 'In network' : b.inNetwork === false ? 'Out of network' : '';
  return html`<span class="badge badge-${cls}">${status}</span>${network ? html`<br><span class="muted">${network}</span>` : ''}`;
}

/** The confidence of one entry and the reasons for it, on a row of its own under the entry. */
function why(b: BenefitEntry, columns: number): SafeHtml {
  const c = b.confidence;
  return html`<tr class="why"><td colspan="${columns}"><span class="sr-only">${b.serviceType}: </span>Confidence <strong>${
    c ? percent(c.score) : notStated()
  }</strong>${c?.criteria.length ? html`: ${c.criteria.join('; ')}` : ''}</td></tr>`;
}

function deductibleApplies(b: BenefitEntry): SafeHtml | string {
  return b.deductibleApplies === false
    ? html`<strong>Does not apply</strong>`
    : b.deductibleApplies === true
      ? 'Applies'
      : notStated();
}

/**
 * One row per service type. The plan's deductible and out-of-pocket amounts are in their own table above;
 * the columns for them come back only when some service type states amounts of its own.
 */
function benefitsTable(benefits: BenefitEntry[], plan: PlanAmounts | undefined): SafeHtml {
  if (!benefits.length) {
    return html`<p>Coverage could not be determined for any service type: the payer's answer had no usable
benefits. See the warnings and the raw answer below.</p>`;
  }
  const ownAmounts = !plan || benefits.some((b) => !entryRepeatsPlan(b, plan));
  const columns = ownAmounts ? 9 : 7;
  const asPlan = html`<span class="muted">Plan amounts</span>`;
  return html`<div class="table-wrap" role="region" aria-labelledby="benefits" tabindex="0"><table class="benefits">
<thead><tr>
<th scope="col">Service type</th><th scope="col">Coverage</th><th scope="col">Copay</th><th scope="col">Coinsurance</th>
<th scope="col">Deductible</th>${ownAmounts ? html`<th scope="col">Deductible amounts</th><th scope="col">Out-of-pocket max</th>` : ''}
<th scope="col">Visits used / limit</th><th scope="col">Prior authorization</th>
</tr></thead>
<tbody>${benefits.map((b) => {
    const repeats = plan !== undefined && entryRepeatsPlan(b, plan);
    return html`<tr class="entry">
<th scope="row">${b.serviceType}</th>
<td>${coverage(b)}</td>
<td>${money(b.copay)}</td>
<td>${percent(b.coinsurance)}</td>
<td>${deductibleApplies(b)}</td>${
      ownAmounts
        ? html`<td>${repeats ? asPlan : html`${withRemaining(b.deductible, b.deductibleRemaining)}${family(b.familyDeductible, b.familyDeductibleRemaining)}`}</td>
<td>${repeats ? asPlan : html`${withRemaining(b.outOfPocketMax, b.outOfPocketRemaining)}${family(b.familyOutOfPocketMax, b.familyOutOfPocketRemaining)}`}</td>`
        : ''
    }
<td>${b.visitLimit == null && b.visitsUsed == null ? notStated() : html`${count(b.visitsUsed)} / ${count(b.visitLimit)}`}</td>
<td>${b.authorizationRequired === true ? html`<strong>Required</strong>` : b.authorizationRequired === false ? 'Not required' : notStated()}</td>
</tr>${why(b, columns)}`;
  })}</tbody></table></div>`;
}

/** `allServiceTypesMatchedDirectly` → `All service types matched directly`. */
function criterionText(key: string): string {
  const words = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Puts each X12 segment on its own line (the terminator is the ISA's 106th character). */
export function x12Lines(x12: string): string {
  if (x12.includes('\n') || !x12.startsWith('ISA') || x12.length < 106) return x12;
  const terminator = x12[105]!;
  return x12
    .split(terminator)
    .filter(Boolean)
    .map((s) => s + terminator)
    .join('\n');
}

function overallConfidence(r: EligibilityCheckResponse, verdict: Verdict | undefined): SafeHtml {
  const overall = r.confidence;
  // How sure the service is of the benefits it read: meaningless, and misleading, when there is no coverage.
  if (!overall || verdict?.status !== 'ACTIVE') return html``;
  return html`<p>Overall confidence: <strong>${percent(overall.score)}</strong></p>${
    Object.keys(overall.criteria).length
      ? html`<ul class="criteria">${Object.entries(overall.criteria).map(
          ([k, ok]) =>
            html`<li><span aria-hidden="true">${ok ? '✓' : '✗'}</span><span class="sr-only">${ok ? 'Yes:' : 'No:'}</span> ${criterionText(k)}</li>`,
        )}</ul>`
      : ''
  }`;
}

function planSection(r: EligibilityCheckResponse, verdict: Verdict | undefined): SafeHtml {
  return html`<section aria-labelledby="plan"><h2 id="plan">Plan</h2>${facts([
    ['Plan', r.planInformation?.planName],
    ['Insurance type', r.planInformation?.insuranceType],
    ['Group number', r.planInformation?.groupNumber ?? r.subscriber?.groupNumber],
    ['Plan active', r.planActive === undefined ? undefined : yesNo(r.planActive)],
    ['Coverage', r.planCoverage],
    [
      'Eligibility',
      r.planDateInformation?.eligibility ? x12Date(r.planDateInformation.eligibility) : undefined,
    ],
    ['Plan dates', r.planDateInformation?.plan ? x12Date(r.planDateInformation.plan) : undefined],
    [
      'Network',
      r.providerNetwork?.status
        ? `${r.providerNetwork.status}${r.providerNetwork.tier ? `, tier ${r.providerNetwork.tier}` : ''}`
        : undefined,
    ],
  ])}
${overallConfidence(r, verdict)}
</section>`;
}

/** Coordination of benefits: the other payers and their order, before the amounts this plan would pay. */
function otherCoverageSection(r: EligibilityCheckResponse): SafeHtml | '' {
  const t = otherCoverageTable(r.otherCoverage);
  if (!t) return '';
  return html`<section aria-labelledby="other-coverage"><h2 id="other-coverage">Other coverage</h2>
<div class="table-wrap" role="region" aria-labelledby="other-coverage" tabindex="0"><table>
<thead><tr>${t.columns.map((col) => html`<th scope="col">${col}</th>`)}</tr></thead>
<tbody>${t.rows.map(
    ([first, ...rest]) => html`<tr><th scope="row">${first}</th>${rest.map((v) => html`<td>${v}</td>`)}</tr>`,
  )}</tbody></table></div></section>`;
}

function completed(r: EligibilityCheckResponse, verdict: Verdict | undefined): SafeHtml {
  const plan = planAmountsOf(r);
  return html`${otherCoverageSection(r)}
${planAmountsSection(r)}
<section aria-labelledby="benefits"><h2 id="benefits">Benefits by service type</h2>${benefitsTable(r.benefits ?? [], plan)}</section>
${planSection(r, verdict)}`;
}

function rest(r: EligibilityCheckResponse): SafeHtml {
  return html`${
    r.warnings?.length
      ? html`<section aria-labelledby="warnings"><h2 id="warnings">Warnings</h2><ul>${r.warnings.map(
          (w) => html`<li><code>${w.code}</code> ${w.description}</li>`,
        )}</ul></section>`
      : ''
  }
${r.dependents?.length ? dependentsSection(r.dependents) : ''}
${r.additionalNotes ? html`<section aria-labelledby="notes"><h2 id="notes">Notes</h2><p class="pre-line">${r.additionalNotes}</p></section>` : ''}
<section aria-labelledby="raw"><h2 id="raw">Raw answer</h2>
<details><summary>JSON (as the API returns it)</summary><pre class="code">${JSON.stringify(r, null, 2)}</pre></details>
${r.x12 ? html`<details><summary>X12 271 from the payer</summary><pre class="code">${x12Lines(r.x12)}</pre></details>` : ''}
</section>`;
}

function whoSection(c: CheckDetail): SafeHtml {
  const sub = c.result?.subscriber ?? c.request?.subscriber;
  return html`<section aria-labelledby="who"><h2 id="who">Patient and provider</h2>${facts([
    ['Member', personName(sub) || undefined],
    ['Member id', sub?.memberId],
    ['Date of birth', sub?.dateOfBirth ? x12Date(sub.dateOfBirth) : undefined],
    ['Provider', providerText(c.result?.provider ?? c.request?.provider)],
    ['Payer', payerText(c.result, c.request)],
    ['Check id', html`<code>${c.id}</code>`],
    ['Submitted', timestamp(c.createdAt)],
    ['Finished', c.completedAt ? timestamp(c.completedAt) : undefined],
    ['Payer attempts', String(c.attempts)],
  ])}</section>`;
}

export function checkDetailPage(
  s: PortalSession,
  c: CheckDetail,
  notice?: string,
  history?: CoverageHistory,
  /** Charges estimated on this page (the panel's form), and the form as sent. */
  estimate?: { asked?: CollectSummary; form: CollectForm },
): SafeHtml {
  const inProgress = c.status === 'IN_PROGRESS';
  const r = inProgress ? undefined : c.result;
  const verdict = r ? verdictOfResult(r) : undefined;
  const resubmit = c.request ? `/portal/checks/${c.id}/resubmit` : undefined;
  return page({
    title: 'Check',
    session: s,
    current: 'checks',
    notice,
    refreshSeconds: inProgress ? REFRESH_SECONDS : undefined,
    body: html`<p><a href="/portal/checks">← All checks</a> · <a href="/portal/checks/${c.id}/print">Print view</a> · <a href="/portal/checks/${c.id}/print.pdf" download>PDF</a></p>
<h1>Eligibility check ${verdict ? verdictBadge(verdict) : statusBadge(c.status)}</h1>
${
  inProgress
    ? html`<p class="panel" role="status">The payer has not answered yet. This page reloads every ${REFRESH_SECONDS} seconds.</p>`
    : ''
}
${verdict ? verdictBanner(verdict) : ''}
${reusedNote(r)}
${coverageHistorySection(history)}
${r ? correctionsBox(correctionsOf(r)) : ''}
${r?.status === 'FAILED' ? errorsSection(r.errors ?? [], resubmit) : ''}
${r?.status === 'COMPLETED' ? completed(r, verdict) : ''}
${
  r?.status === 'COMPLETED' && !r.warnings?.some((w) => w.code === 'PURGED')
    ? collectPanel(
        s,
        c.id,
        r.estimates?.length ? collectAtDesk(r.estimates, r.estimateTotal) : undefined,
        estimate?.asked,
        estimate?.form ?? EMPTY_COLLECT_FORM,
      )
    : ''
}
${r?.status === 'COMPLETED' && r.errors?.length ? errorsSection(r.errors, resubmit) : ''}
${whoSection(c)}
${c.request ? monitorForm(s, c.id, EMPTY_MONITOR_FORM, []) : ''}
${r ? rest(r) : ''}`,
  });
}
