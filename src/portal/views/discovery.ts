/**
 * "Find coverage" (insurance discovery, docs/discovery.md): the form (a patient's name and date of birth,
 * no member id) and a discovery's page (progress while the payers answer, then the coverages found, each
 * linking to its check). Pure functions from data to HTML.
 */
import type { Discovery } from '../../contract/discovery.ts';
import type { PortalSession } from '../../tenancy/sessions.ts';
import { timestamp } from '../format.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, errorSummary, fieldId, page, textField } from '../layout.ts';

export const DISCOVERY_FIELDS = {
  'provider.organizationName': 'Provider name',
  'provider.npi': 'Provider NPI',
  'patient.firstName': 'First name',
  'patient.lastName': 'Last name',
  'patient.dateOfBirth': 'Date of birth',
  'patient.state': 'State',
  dateOfService: 'Date of service',
} as const;
export type DiscoveryField = keyof typeof DISCOVERY_FIELDS;
export type DiscoveryValues = Record<DiscoveryField, string>;

/** The form, with what was typed and the problem the service found (one message, as the API words it). */
export function findCoveragePage(s: PortalSession, v: DiscoveryValues, problem?: string): SafeHtml {
  const field = (name: DiscoveryField, extra: Partial<Parameters<typeof textField>[0]> = {}) =>
    textField({ name, label: DISCOVERY_FIELDS[name], value: v[name], required: true, ...extra });
  return page({
    title: 'Find coverage',
    session: s,
    current: 'discovery',
    body: html`<h1>Find coverage</h1>
<p>For a patient without an insurance card: asks the payers that search by name and date of birth whether
they cover the patient. Each payer that finds the patient gives an ordinary check, with its member id.</p>
${problem ? errorSummary([{ field: fieldId('patient.firstName'), message: problem }]) : ''}
<form method="post" action="/portal/discovery/new" novalidate class="grid-form">
  ${csrfField(s.csrfToken)}
  <fieldset><legend>Provider</legend>
  ${field('provider.organizationName', { autocomplete: 'organization' })}
  ${field('provider.npi', { inputmode: 'numeric', hint: '10 digits.', maxlength: 10, autocomplete: 'off' })}
  </fieldset>
  <fieldset><legend>Patient</legend>
  ${field('patient.firstName', { autocomplete: 'off' })}
  ${field('patient.lastName', { autocomplete: 'off' })}
  ${field('patient.dateOfBirth', { inputmode: 'numeric', hint: 'YYYYMMDD or YYYY-MM-DD, e.g. 19800115.', autocomplete: 'off' })}
  ${field('patient.state', { required: false, hint: 'Two letters, e.g. TX: payers that serve other states only are not asked.', maxlength: 2, autocomplete: 'off' })}
  ${field('dateOfService', { required: false, inputmode: 'numeric', hint: 'YYYYMMDD or YYYY-MM-DD; default today.', autocomplete: 'off' })}
  </fieldset>
  <button type="submit">Find coverage</button>
</form>`,
  });
}

/** A discovery: progress while payers answer (the page reloads itself), then the coverages found. */
export function discoveryPage(s: PortalSession, d: Discovery): SafeHtml {
  const done = d.status === 'COMPLETED';
  const progress = html`<p>${d.progress.answered} of ${d.progress.asked} payer${d.progress.asked === 1 ? '' : 's'} answered${
    done ? html`, finished ${timestamp(d.completedAt)}` : ''
  }.</p>`;
  const found = d.coverages.length
    ? html`<table><caption>Coverage found</caption><thead><tr><th scope="col">Verdict</th><th scope="col">Payer</th><th scope="col">Plan</th><th scope="col">Check</th></tr></thead><tbody>${d.coverages.map(
        (c) =>
          html`<tr><td>${c.verdict.status}: ${c.verdict.summary}</td><td>${c.payerName ?? c.tradingPartnerServiceId} <span class="muted">(${c.tradingPartnerServiceId})</span></td><td>${c.planName ?? ''}</td><td><a href="/portal/checks/${c.checkId}">Open the check</a></td></tr>`,
      )}</tbody></table>`
    : html`<p>${done ? 'No payer asked found this patient.' : 'No coverage found yet.'}</p>`;
  return page({
    title: 'Find coverage',
    session: s,
    current: 'discovery',
    refreshSeconds: done ? undefined : 2,
    body: html`<h1>Find coverage: ${done ? 'finished' : 'asking payers'}</h1>
${progress}
${found}
<p><a href="/portal/discovery/new">Find coverage for another patient</a></p>`,
  });
}
