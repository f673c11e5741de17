/**
 * The "Run a check" form: the request's fields grouped as staff read them (payer, provider, member,
 * encounter), validation problems on the field they are about, and the same form filled in from a failed
 * check ("Fix and resubmit"). With the organization's providers configured, the provider is picked by name
 * (the default chosen; "Other provider" still takes a typed one); service types are ticked by name, and the
 * route turns them into the X12 codes the API takes.
 */
import { PRIMARY_CODE } from '../../benefits/service-types.ts';
import type { FieldProblem } from '../../checks/request.ts';
import { PRODUCT_SERVICE_TYPES } from '../../contract/check-response.ts';
import type { ListedPayer } from '../../payers/directory.ts';
import type { OrganizationProvider } from '../../tenancy/providers.ts';
import type { PortalSession } from '../../tenancy/sessions.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, errorSummary, fieldId, page, textField } from '../layout.ts';
import { payerPicker } from './payer-picker.ts';

/**
 * The form's fields, named as in the API request where they are one of its fields, with their labels.
 * `provider.choice` is the picked provider's NPI (`other`: the typed one); `encounter.serviceTypes` the
 * ticked service type names, comma-separated.
 */
export const FIELDS = {
  tradingPartnerServiceId: 'Payer',
  'provider.choice': 'Provider',
  'provider.organizationName': 'Provider organization name',
  'provider.npi': 'Provider NPI',
  'subscriber.memberId': 'Member id',
  'subscriber.firstName': 'First name',
  'subscriber.lastName': 'Last name',
  'subscriber.dateOfBirth': 'Date of birth',
  'encounter.serviceTypes': 'Service types',
  'encounter.serviceTypeCodes': 'Other service type codes',
  'encounter.dateOfService': 'Date of service',
} as const;
export type FieldName = keyof typeof FIELDS;
export type Values = Record<FieldName, string>;

/** `provider.choice` of a typed provider. */
export const OTHER_PROVIDER = 'other';

/**
 * The service types staff tick, by name: "General" (plan coverage, 30) and the seven product service types,
 * each asking with its primary code (src/benefits/service-types.ts; both nutrition products ask with 98).
 */
export const SERVICE_TYPE_CHOICES: readonly { name: string; label: string; code: string }[] = [
  { name: 'General', label: 'General (plan coverage)', code: '30' },
  ...PRODUCT_SERVICE_TYPES.map((name) => ({ name, label: name, code: PRIMARY_CODE[name] })),
];

/** The ticked names of a `encounter.serviceTypes` value. */
export function tickedServiceTypes(value: string): string[] {
  return value
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
}

/** The form field a validation problem belongs to (`encounter.serviceTypeCodes[1]` → the codes field). */
function fieldOf(problem: FieldProblem): FieldName {
  const base = problem.field.replace(/\[\d+\]$/, '');
  if (base === 'encounter.serviceTypeCodes') return base;
  if (base in FIELDS) return base as FieldName;
  if (base === 'provider') return 'provider.organizationName';
  if (base.startsWith('subscriber')) return 'subscriber.memberId';
  if (base.startsWith('encounter')) return 'encounter.serviceTypeCodes';
  return 'tradingPartnerServiceId';
}

/** A validation problem in the words of the form. */
function message(problem: FieldProblem): string {
  const field = fieldOf(problem);
  if (problem.field === 'provider') return 'Enter the provider organization name.';
  const label: string = FIELDS[field];
  const index = /\[(\d+)\]$/.exec(problem.field);
  return `${label}${index ? ` (code ${Number(index[1]) + 1})` : ''} ${problem.problem}.`;
}

/** A form filled in from an earlier check ("Fix and resubmit"): why, and the fields to look at. */
export interface Prefill {
  intro: SafeHtml;
  highlights: { field: FieldName; message: string }[];
}

/** The provider picker: the organization's providers by name, the chosen one selected, and "Other provider". */
function providerPicker(
  providers: readonly OrganizationProvider[],
  chosen: string,
  error: string | undefined,
): SafeHtml {
  const id = fieldId('provider.choice');
  const selected = (value: string) => (value === chosen ? html` selected` : '');
  return html`<div class="field${error ? ' has-error' : ''}">
  <label for="${id}">${FIELDS['provider.choice']}</label>
  ${error ? html`<p class="error" id="${id}-error">${error}</p>` : ''}
  <select id="${id}" name="provider.choice" required${error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}>${providers.map(
    (p) => html`<option value="${p.npi}"${selected(p.npi)}>${p.name} (NPI ${p.npi})</option>`,
  )}<option value="${OTHER_PROVIDER}"${selected(OTHER_PROVIDER)}>Other provider (type below)</option></select>
</div>`;
}

/** The service types as checkboxes by name; what they ask for is in the hint, for staff who know the codes. */
function serviceTypeBoxes(ticked: readonly string[]): SafeHtml {
  const id = fieldId('encounter.serviceTypes');
  return html`<fieldset id="${id}"><legend>${FIELDS['encounter.serviceTypes']} <span class="muted">(optional)</span></legend>
  <p class="hint">None ticked: General (the plan's coverage).</p>
  ${SERVICE_TYPE_CHOICES.map((c, i) => {
    const box = `${id}-${i}`;
    return html`<div class="check"><input type="checkbox" id="${box}" name="encounter.serviceTypes" value="${c.name}"${
      ticked.includes(c.name) ? html` checked` : ''
    }><label for="${box}">${c.label} <span class="muted">(${c.code})</span></label></div>`;
  })}
</fieldset>`;
}

/** The run-a-check form: what was typed, each problem on its field, and the prefill's note when there is one. */
export function runPage(
  s: PortalSession,
  payers: readonly ListedPayer[],
  v: Values,
  problems: FieldProblem[],
  prefill?: Prefill,
  providers: readonly OrganizationProvider[] = [],
): SafeHtml {
  const errors = [
    ...(prefill?.highlights ?? []),
    ...problems.map((p) => ({ field: fieldOf(p), message: message(p) })),
  ];
  const errorFor = (name: FieldName) =>
    errors
      .filter((e) => e.field === name)
      .map((e) => e.message)
      .join(' ') || undefined;
  const field = (name: FieldName, extra: Partial<Parameters<typeof textField>[0]> = {}) =>
    textField({ name, label: FIELDS[name], value: v[name], required: true, error: errorFor(name), ...extra });
  return page({
    title: 'Run a check',
    session: s,
    current: 'run',
    body: html`<h1>Run a check</h1>
<p>Asks the payer whether the member is covered and for what. The answer usually arrives within seconds;
the next page updates by itself until it does.</p>
${prefill?.intro ?? ''}
${errorSummary(errors.filter((e, i) => errors.findIndex((x) => x.message === e.message) === i))}
<form method="post" action="/portal/checks/new" novalidate class="grid-form">
  ${csrfField(s.csrfToken)}
  <fieldset><legend>Payer</legend>
  ${payerPicker({ name: 'tradingPartnerServiceId', label: FIELDS.tradingPartnerServiceId, payers, value: v.tradingPartnerServiceId, error: errorFor('tradingPartnerServiceId') })}
  </fieldset>
  <fieldset><legend>Provider</legend>
  ${
    providers.length
      ? html`${providerPicker(providers, v['provider.choice'], errorFor('provider.choice'))}
  ${field('provider.organizationName', { required: false, autocomplete: 'organization', hint: 'Only for "Other provider".' })}
  ${field('provider.npi', { required: false, inputmode: 'numeric', hint: 'Only for "Other provider": 10 digits.', maxlength: 10, autocomplete: 'off' })}`
      : html`${field('provider.organizationName', { autocomplete: 'organization' })}
  ${field('provider.npi', { inputmode: 'numeric', hint: '10 digits.', maxlength: 10, autocomplete: 'off' })}`
  }
  </fieldset>
  <fieldset><legend>Member</legend>
  ${field('subscriber.memberId', { autocomplete: 'off', hint: 'As printed on the insurance card.' })}
  ${field('subscriber.firstName', { autocomplete: 'off' })}
  ${field('subscriber.lastName', { autocomplete: 'off' })}
  ${field('subscriber.dateOfBirth', { inputmode: 'numeric', hint: 'YYYYMMDD or YYYY-MM-DD, e.g. 19800115.', autocomplete: 'off' })}
  </fieldset>
  <fieldset><legend>Encounter</legend>
  ${serviceTypeBoxes(tickedServiceTypes(v['encounter.serviceTypes']))}
  ${field('encounter.serviceTypeCodes', { required: false, hint: 'Any other X12 service type codes, separated by commas, e.g. AE, 88.', autocomplete: 'off' })}
  ${field('encounter.dateOfService', { required: false, inputmode: 'numeric', hint: 'YYYYMMDD or YYYY-MM-DD; default today.', autocomplete: 'off' })}
  </fieldset>
  <button type="submit">Run check</button>
</form>`,
  });
}

/**
 * "Fix and resubmit": the form filled in from a check that failed, led by a note that links the earlier check
 * and names its errors; `highlights` are the fields they point at, each with the error's resolution.
 */
export function resubmitPage(
  s: PortalSession,
  payers: readonly ListedPayer[],
  values: Values,
  earlier: { id: string; errors: readonly { description: string }[] },
  highlights: Prefill['highlights'],
  providers: readonly OrganizationProvider[] = [],
): SafeHtml {
  const { errors } = earlier;
  const intro = html`<div class="panel" role="note"><p>Filled in from <a href="/portal/checks/${earlier.id}">an earlier check</a>${
    errors.length ? html` that failed: <strong>${errors.map((e) => e.description).join('; ')}</strong>` : ''
  }.</p><p>${
    highlights.length
      ? 'Correct the highlighted fields and run the check again.'
      : 'No one field is to blame: check the details and run the check again.'
  } The earlier check stays as it was.</p></div>`;
  return runPage(s, payers, values, [], { intro, highlights }, providers);
}
