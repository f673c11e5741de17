/**
 * One eligibility check as a front desk reads it: who and which plan, whether each of the seven service
 * types is covered and what the patient pays, how sure the service is and why, what went wrong and what to
 * do about it; the raw JSON and X12 folded away for whoever needs them.
 */
import type { CheckDetail } from '../../checks/list.ts';
import type {
  BenefitEntry,
  EligibilityCheckError,
  EligibilityCheckResponse,
  ResponseDependent,
} from '../../contract/check-response.ts';
import type { PortalSession } from '../../tenancy/sessions.ts';
import { count, money, notStated, percent, statusBadge, timestamp, x12Date, yesNo } from '../format.ts';
import { type HtmlValue, html, type SafeHtml } from '../html.ts';
import { page } from '../layout.ts';

const REFRESH_SECONDS = 3;

function facts(rows: [string, HtmlValue][]): SafeHtml {
  return html`<dl class="facts">${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v ?? notStated()}</dd>`)}</dl>`;
}

function personName(p: { firstName?: string; middleName?: string; lastName?: string } | undefined): string {
  return [p?.firstName, p?.middleName, p?.lastName].filter(Boolean).join(' ');
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
function why(b: BenefitEntry): SafeHtml {
  const c = b.confidence;
  return html`<tr class="why"><td colspan="8"><span class="sr-only">${b.serviceType}: </span>Confidence <strong>${
    c ? percent(c.score) : notStated()
  }</strong>${c?.criteria.length ? html`: ${c.criteria.join('; ')}` : ''}</td></tr>`;
}

function benefitsTable(benefits: BenefitEntry[]): SafeHtml {
  if (!benefits.length) {
    return html`<p>Coverage could not be determined for any service type: the payer's answer had no usable
benefits. See the warnings and the raw answer below.</p>`;
  }
  return html`<div class="table-wrap" role="region" aria-labelledby="benefits" tabindex="0"><table class="benefits">
<thead><tr>
<th scope="col">Service type</th><th scope="col">Coverage</th><th scope="col">Copay</th><th scope="col">Coinsurance</th>
<th scope="col">Deductible</th><th scope="col">Out-of-pocket max</th><th scope="col">Visits used / limit</th>
<th scope="col">Prior authorization</th>
</tr></thead>
<tbody>${benefits.map(
    (b) => html`<tr class="entry">
<th scope="row">${b.serviceType}</th>
<td>${coverage(b)}</td>
<td>${money(b.copay)}</td>
<td>${percent(b.coinsurance)}</td>
<td>${withRemaining(b.deductible, b.deductibleRemaining)}${family(b.familyDeductible, b.familyDeductibleRemaining)}${
      b.deductibleApplies === false ? html`<br><strong>Deductible does not apply</strong>` : ''
    }</td>
<td>${withRemaining(b.outOfPocketMax, b.outOfPocketRemaining)}${family(b.familyOutOfPocketMax, b.familyOutOfPocketRemaining)}</td>
<td>${b.visitLimit == null && b.visitsUsed == null ? notStated() : html`${count(b.visitsUsed)} / ${count(b.visitLimit)}`}</td>
<td>${b.authorizationRequired === true ? html`<strong>Required</strong>` : b.authorizationRequired === false ? 'Not required' : notStated()}</td>
</tr>${why(b)}`,
  )}</tbody></table></div>`;
}

function errorsTable(errors: EligibilityCheckError[]): SafeHtml {
  return html`<div class="table-wrap" role="region" aria-labelledby="errors" tabindex="0"><table>
<thead><tr><th scope="col">Code</th><th scope="col">What happened</th><th scope="col">What to do</th><th scope="col">Where</th></tr></thead>
<tbody>${errors.map(
    (e) =>
      html`<tr><th scope="row"><code>${e.code}</code></th><td>${e.description}${
        e.possibleResolutions ? html`<p class="pre-line muted">${e.possibleResolutions}</p>` : ''
      }</td><td><strong>${e.followupAction ?? notStated()}</strong></td><td>${e.location ?? notStated()}</td></tr>`,
  )}</tbody></table></div>`;
}

function dependents(list: ResponseDependent[]): SafeHtml {
  return html`<section aria-labelledby="dependents"><h2 id="dependents">Dependents</h2><ul>${list.map(
    (d) =>
      html`<li>${personName(d)} <span class="muted">born ${x12Date(d.dateOfBirth)}</span>${
        d.aaaErrors?.length
          ? html`<ul>${d.aaaErrors.map((e) => html`<li><code>${e.code}</code> ${e.description}: ${e.followupAction ?? ''}</li>`)}</ul>`
          : ''
      }</li>`,
  )}</ul></section>`;
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

function result(r: EligibilityCheckResponse): SafeHtml {
  const overall = r.confidence;
  return html`<section aria-labelledby="plan"><h2 id="plan">Plan</h2>${facts([
    [
      'Payer',
      r.payer ? `${r.payer.payerName ?? ''}${r.payer.payerId ? ` (${r.payer.payerId})` : ''}` : undefined,
    ],
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
${
  overall
    ? html`<p>Overall confidence: <strong>${percent(overall.score)}</strong></p>${
        Object.keys(overall.criteria).length
          ? html`<ul class="criteria">${Object.entries(overall.criteria).map(
              ([k, ok]) =>
                html`<li><span aria-hidden="true">${ok ? '✓' : '✗'}</span><span class="sr-only">${ok ? 'Yes:' : 'No:'}</span> ${criterionText(k)}</li>`,
            )}</ul>`
          : ''
      }`
    : ''
}
</section>
${
  r.status === 'COMPLETED'
    ? html`<section aria-labelledby="benefits"><h2 id="benefits">Benefits by service type</h2>${benefitsTable(r.benefits ?? [])}</section>`
    : ''
}
${r.errors?.length ? html`<section aria-labelledby="errors"><h2 id="errors">Errors</h2>${errorsTable(r.errors)}</section>` : ''}
${
  r.warnings?.length
    ? html`<section aria-labelledby="warnings"><h2 id="warnings">Warnings</h2><ul>${r.warnings.map(
        (w) => html`<li><code>${w.code}</code> ${w.description}</li>`,
      )}</ul></section>`
    : ''
}
${r.dependents?.length ? dependents(r.dependents) : ''}
${r.additionalNotes ? html`<section aria-labelledby="notes"><h2 id="notes">Notes</h2><p class="pre-line">${r.additionalNotes}</p></section>` : ''}
<section aria-labelledby="raw"><h2 id="raw">Raw answer</h2>
<details><summary>JSON (as the API returns it)</summary><pre class="code">${JSON.stringify(r, null, 2)}</pre></details>
${r.x12 ? html`<details><summary>X12 271 from the payer</summary><pre class="code">${x12Lines(r.x12)}</pre></details>` : ''}
</section>`;
}

export function checkDetailPage(s: PortalSession, c: CheckDetail, notice?: string): SafeHtml {
  const sub = c.result?.subscriber ?? c.request?.subscriber;
  const provider = c.result?.provider ?? c.request?.provider;
  const inProgress = c.status === 'IN_PROGRESS';
  return page({
    title: 'Check',
    session: s,
    current: 'checks',
    notice,
    refreshSeconds: inProgress ? REFRESH_SECONDS : undefined,
    body: html`<p><a href="/portal/checks">← All checks</a></p>
<h1>Eligibility check ${statusBadge(c.status)}</h1>
${
  inProgress
    ? html`<p class="panel" role="status">The payer has not answered yet. This page reloads every ${REFRESH_SECONDS} seconds.</p>`
    : ''
}
<section aria-labelledby="who"><h2 id="who">Patient and provider</h2>${facts([
      ['Member', personName(sub) || undefined],
      ['Member id', sub?.memberId],
      ['Date of birth', sub?.dateOfBirth ? x12Date(sub.dateOfBirth) : undefined],
      [
        'Provider',
        provider
          ? `${provider.organizationName ?? personName(provider)}${provider.npi ? `, NPI ${provider.npi}` : ''}`
          : undefined,
      ],
      ['Payer id', c.result?.tradingPartnerServiceId ?? c.request?.tradingPartnerServiceId],
      ['Check id', html`<code>${c.id}</code>`],
      ['Submitted', timestamp(c.createdAt)],
      ['Finished', c.completedAt ? timestamp(c.completedAt) : undefined],
      ['Payer attempts', String(c.attempts)],
    ])}</section>
${c.result && !inProgress ? result(c.result) : ''}`,
  });
}
