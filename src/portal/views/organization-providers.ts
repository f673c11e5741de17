/**
 * Settings > Organization, "Providers": the names and NPIs the run-a-check form offers, one of them the
 * default, with a form to add one and a button to remove each or make it the default.
 */
import { MAX_PROVIDER_NAME, MAX_PROVIDERS, type OrganizationProvider } from '../../tenancy/providers.ts';
import type { PortalSession } from '../../tenancy/sessions.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, errorSummary, textField } from '../layout.ts';

/** The add form's fields. */
export const PROVIDER_FIELDS = {
  name: 'providerName',
  npi: 'providerNpi',
  isDefault: 'providerIsDefault',
} as const;

/** A refused change: its problems (on the add form's fields) and what was typed. */
export interface ProvidersForm {
  errors: { field: string; message: string }[];
  name?: string;
  npi?: string;
  isDefault?: boolean;
}

function row(s: PortalSession, p: OrganizationProvider): SafeHtml {
  const action = (path: string, label: string, cls: string) =>
    html`<form method="post" action="/portal/settings/organization/providers/${path}" class="inline">${csrfField(s.csrfToken)}<input type="hidden" name="npi" value="${p.npi}"><button type="submit" class="${cls}">${label}<span class="sr-only"> ${p.name}</span></button></form>`;
  return html`<tr><td>${p.name}</td><td class="mono">${p.npi}</td><td>${p.isDefault ? html`<strong>Default</strong>` : action('default', 'Make default', 'secondary')}</td><td>${action('remove', 'Remove', 'danger-text')}</td></tr>`;
}

export function providersSection(
  s: PortalSession,
  providers: readonly OrganizationProvider[],
  form: ProvidersForm = { errors: [] },
): SafeHtml {
  const errorFor = (field: string) =>
    form.errors
      .filter((e) => e.field === field)
      .map((e) => e.message)
      .join(' ') || undefined;
  const full = providers.length >= MAX_PROVIDERS;
  return html`<section aria-labelledby="providers"><h2 id="providers">Providers</h2>
<p>The providers staff run checks for. "Run a check" offers them by name with the default one chosen, so nobody
types an NPI on every check; "Other provider" still lets staff type one. Up to ${MAX_PROVIDERS}.</p>
${errorSummary(form.errors)}
${
  providers.length
    ? html`<table><thead><tr><th scope="col">Name</th><th scope="col">NPI</th><th scope="col">Default</th><th scope="col"><span class="sr-only">Remove</span></th></tr></thead>
<tbody>${providers.map((p) => row(s, p))}</tbody></table>`
    : html`<p>No providers yet: the run-a-check form asks for the provider's name and NPI each time.</p>`
}
${
  full
    ? html`<p>The list is full: remove a provider to add another.</p>`
    : html`<form method="post" action="/portal/settings/organization/providers" novalidate>
  ${csrfField(s.csrfToken)}
  ${textField({ name: PROVIDER_FIELDS.name, label: 'Provider name or organization name', value: form.name ?? '', required: true, error: errorFor(PROVIDER_FIELDS.name), maxlength: MAX_PROVIDER_NAME, hint: 'As the payer knows the provider, e.g. Demo Clinic.' })}
  ${textField({ name: PROVIDER_FIELDS.npi, label: 'NPI', value: form.npi ?? '', required: true, error: errorFor(PROVIDER_FIELDS.npi), inputmode: 'numeric', maxlength: 10, autocomplete: 'off', hint: '10 digits.' })}
  <div class="check"><input type="checkbox" id="f-providerIsDefault" name="${PROVIDER_FIELDS.isDefault}" value="yes"${form.isDefault || !providers.length ? html` checked` : ''}><label for="f-providerIsDefault">Make it the default</label></div>
  <button type="submit">Add provider</button>
</form>`
}</section>`;
}
