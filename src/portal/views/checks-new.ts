/**
 * The "Run a check" form: the request's fields grouped as staff read them (payer, provider, member,
 * encounter), validation problems on the field they are about, and the same form filled in from a failed
 * check ("Fix and resubmit").
 */
import type { FieldProblem } from '../../checks/request.ts';
import type { ListedPayer } from '../../payers/directory.ts';
import type { PortalSession } from '../../tenancy/sessions.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, errorSummary, page, textField } from '../layout.ts';
import { payerPicker } from './payer-picker.ts';

/** The form's fields, named as in the API request, with their labels. */
export const FIELDS = {
  tradingPartnerServiceId: 'Payer',
  'provider.organizationName': 'Provider organization name',
  'provider.npi': 'Provider NPI',
  'subscriber.memberId': 'Member id',
  'subscriber.firstName': 'First name',
  'subscriber.lastName': 'Last name',
  'subscriber.dateOfBirth': 'Date of birth',
  'encounter.serviceTypeCodes': 'Service type codes',
  'encounter.dateOfService': 'Date of service',
} as const;
export type FieldName = keyof typeof FIELDS;
export type Values = Record<FieldName, string>;

/** The form field a validation problem belongs to (`encounter.serviceTypeCodes[1]` → the codes field). */
function fieldOf(problem: FieldProblem): FieldName {
  const base = problem.field.replace(/\[\d+\]$/, '');
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

/** The run-a-check form: what was typed, each problem on its field, and the prefill's note when there is one. */
export function runPage(
  s: PortalSession,
  payers: readonly ListedPayer[],
  v: Values,
  problems: FieldProblem[],
  prefill?: Prefill,
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
  ${field('provider.organizationName', { autocomplete: 'organization' })}
  ${field('provider.npi', { inputmode: 'numeric', hint: '10 digits.', maxlength: 10, autocomplete: 'off' })}
  </fieldset>
  <fieldset><legend>Member</legend>
  ${field('subscriber.memberId', { autocomplete: 'off', hint: 'As printed on the insurance card.' })}
  ${field('subscriber.firstName', { autocomplete: 'off' })}
  ${field('subscriber.lastName', { autocomplete: 'off' })}
  ${field('subscriber.dateOfBirth', { inputmode: 'numeric', hint: 'YYYYMMDD or YYYY-MM-DD, e.g. 19800115.', autocomplete: 'off' })}
  </fieldset>
  <fieldset><legend>Encounter</legend>
  ${field('encounter.serviceTypeCodes', { required: false, hint: 'X12 service type codes separated by commas, e.g. 30, PT, MH. Default 30 (plan coverage).', autocomplete: 'off' })}
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
): SafeHtml {
  const { errors } = earlier;
  const intro = html`<div class="panel" role="note"><p>Filled in from <a href="/portal/checks/${earlier.id}">an earlier check</a>${
    errors.length ? html` that failed: <strong>${errors.map((e) => e.description).join('; ')}</strong>` : ''
  }.</p><p>${
    highlights.length
      ? 'Correct the highlighted fields and run the check again.'
      : 'No one field is to blame: check the details and run the check again.'
  } The earlier check stays as it was.</p></div>`;
  return runPage(s, payers, values, [], { intro, highlights });
}
