/**
 * /portal/checks/new, "Run a check" for staff without software: a form that goes through `submitCheck`,
 * exactly like the API, so both accept and refuse the same requests. Member details travel only in the POST
 * body, never in a URL.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FieldProblem } from '../../checks/request.ts';
import { submitCheck } from '../../checks/submit.ts';
import { type ListedPayer, listedPayer } from '../../payers/directory.ts';
import type { PortalSession } from '../../tenancy/sessions.ts';
import { type PortalDeps, seeOther, sendPage, session } from '../context.ts';
import { formBody, formValue } from '../forms.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, errorSummary, page, textField } from '../layout.ts';
import { payerPicker } from '../views/payer-picker.ts';

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

function message(problem: FieldProblem): string {
  const field = fieldOf(problem);
  if (problem.field === 'provider') return 'Enter the provider organization name.';
  const label: string = FIELDS[field];
  const index = /\[(\d+)\]$/.exec(problem.field);
  return `${label}${index ? ` (code ${Number(index[1]) + 1})` : ''} ${problem.problem}.`;
}

/** `1980-01-15` (a date picker) and `19800115` both mean the same day. */
function date8(text: string): string {
  const t = text.trim();
  return /^\d{4}[-/]\d{2}[-/]\d{2}$/.test(t) ? t.replace(/[-/]/g, '') : t;
}

export function buildCheckRequest(v: Values): Record<string, unknown> {
  const present = (x: string) => (x.trim() ? x.trim() : undefined);
  const codes = v['encounter.serviceTypeCodes']
    .split(/[\s,]+/)
    .map((c) => c.trim().toUpperCase())
    .filter(Boolean);
  const dateOfService = present(date8(v['encounter.dateOfService']));
  const encounter = {
    ...(codes.length ? { serviceTypeCodes: codes } : {}),
    ...(dateOfService ? { dateOfService } : {}),
  };
  return JSON.parse(
    JSON.stringify({
      tradingPartnerServiceId: present(v.tradingPartnerServiceId),
      provider: {
        organizationName: present(v['provider.organizationName']),
        npi: present(v['provider.npi']),
      },
      subscriber: {
        memberId: present(v['subscriber.memberId']),
        firstName: present(v['subscriber.firstName']),
        lastName: present(v['subscriber.lastName']),
        dateOfBirth: present(date8(v['subscriber.dateOfBirth'])),
      },
      ...(Object.keys(encounter).length ? { encounter } : {}),
    }),
  );
}

/** A form filled in from an earlier check ("Fix and resubmit"): why, and the fields to look at. */
export interface Prefill {
  intro: SafeHtml;
  highlights: { field: FieldName; message: string }[];
}

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

export const newCheckRoutes: FastifyPluginAsyncTypebox<PortalDeps> = async (portal, deps) => {
  const payers = (deps.payers?.entries ?? []).map(listedPayer);
  portal.get('/checks/new', async (request, reply) => {
    const s = session(request);
    const blank = Object.fromEntries(Object.keys(FIELDS).map((k) => [k, ''])) as Values;
    blank.tradingPartnerServiceId = payers.some((p) => p.id === 'SANDBOX') ? 'SANDBOX' : '';
    blank['provider.organizationName'] = s.organizationName;
    return sendPage(reply, runPage(s, payers, blank, []));
  });

  portal.post('/checks/new', async (request, reply) => {
    const s = session(request);
    const form = formBody(request);
    const values = Object.fromEntries(Object.keys(FIELDS).map((k) => [k, formValue(form, k)])) as Values;
    const submitted = await submitCheck(deps.db, s.user.organizationId, buildCheckRequest(values), {
      wake: () => portal.checksNotifier.notify(),
      payers: deps.payers,
    });
    if (!submitted.ok) {
      const problems =
        'problems' in submitted ? submitted.problems : [{ field: 'body', problem: submitted.conflict }];
      return sendPage(reply, runPage(s, payers, values, problems), 400);
    }
    // Counted like an API check (the payer id as the form sent it, as the API counts what clients send).
    portal.metrics?.submitted(values.tradingPartnerServiceId);
    request.log.info({ userId: s.user.id, checkId: submitted.id }, 'check submitted from the portal');
    return seeOther(reply, `/portal/checks/${submitted.id}`);
  });
};
