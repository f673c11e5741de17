/**
 * /portal/checks/new, "Run a check" for staff without software: a form that goes through `submitCheck`,
 * exactly like the API, so both accept and refuse the same requests. Member details travel only in the POST
 * body, never in a URL. The organization's providers (Settings > Organization) are offered by name, the
 * default chosen; service types are ticked by name and sent as their X12 codes.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FieldProblem } from '../../checks/request.ts';
import { submitCheck } from '../../checks/submit.ts';
import { listedPayer } from '../../payers/directory.ts';
import { defaultProvider, listProviders, type OrganizationProvider } from '../../tenancy/providers.ts';
import { type PortalDeps, seeOther, sendPage, session } from '../context.ts';
import { formBody, formValue, formValues } from '../forms.ts';
import {
  FIELDS,
  OTHER_PROVIDER,
  runPage,
  SERVICE_TYPE_CHOICES,
  tickedServiceTypes,
  type Values,
} from '../views/checks-new.ts';

/** `1980-01-15` (a date picker) and `19800115` both mean the same day. */
function date8(text: string): string {
  const t = text.trim();
  return /^\d{4}[-/]\d{2}[-/]\d{2}$/.test(t) ? t.replace(/[-/]/g, '') : t;
}

/**
 * The X12 codes of the form: the typed ones first, as typed (so a problem's index is the typed code's), then
 * the codes of the ticked names that are not among them (both nutrition products ask with 98, once).
 */
function serviceTypeCodesOf(v: Values): string[] {
  const typed = v['encounter.serviceTypeCodes']
    .split(/[\s,]+/)
    .map((c) => c.trim().toUpperCase())
    .filter(Boolean);
  const ticked = tickedServiceTypes(v['encounter.serviceTypes']);
  const named = SERVICE_TYPE_CHOICES.filter((c) => ticked.includes(c.name)).map((c) => c.code);
  return [...typed, ...new Set(named.filter((c) => !typed.includes(c)))];
}

export function buildCheckRequest(v: Values): Record<string, unknown> {
  const present = (x: string) => (x.trim() ? x.trim() : undefined);
  const codes = serviceTypeCodesOf(v);
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

/**
 * The form's values with the picked provider's name and NPI in place of the typed ones; a problem when the
 * picked provider is no longer in the list (removed while the form was open). No pick, or "Other
 * provider": the typed provider, as before providers existed.
 */
export function withChosenProvider(
  v: Values,
  providers: readonly OrganizationProvider[],
): { values: Values } | { problem: FieldProblem } {
  const choice = v['provider.choice'].trim();
  if (!choice || choice === OTHER_PROVIDER) return { values: v };
  const chosen = providers.find((p) => p.npi === choice);
  if (!chosen)
    return { problem: { field: 'provider.choice', problem: 'is no longer in the list: choose again' } };
  return { values: { ...v, 'provider.organizationName': chosen.name, 'provider.npi': chosen.npi } };
}

/**
 * Which provider a form filled in from a request picks: the listed one with the same NPI and name, else
 * "Other provider" with the request's own (nothing to pick when the organization lists none).
 */
export function choiceFor(
  providers: readonly OrganizationProvider[],
  provider: { organizationName: string; npi: string },
): string {
  if (!providers.length) return '';
  const listed = providers.find((p) => p.npi === provider.npi && p.name === provider.organizationName);
  return listed ? listed.npi : OTHER_PROVIDER;
}

export const newCheckRoutes: FastifyPluginAsyncTypebox<PortalDeps> = async (portal, deps) => {
  const payers = (deps.payers?.entries ?? []).map(listedPayer);
  portal.get('/checks/new', async (request, reply) => {
    const s = session(request);
    const providers = await listProviders(deps.db, s.user.organizationId);
    const blank = Object.fromEntries(Object.keys(FIELDS).map((k) => [k, ''])) as Values;
    blank.tradingPartnerServiceId = payers.some((p) => p.id === 'SANDBOX') ? 'SANDBOX' : '';
    blank['provider.organizationName'] = s.organizationName;
    if (providers.length) blank['provider.choice'] = defaultProvider(providers)?.npi ?? OTHER_PROVIDER;
    return sendPage(reply, runPage(s, payers, blank, [], undefined, providers));
  });

  portal.post('/checks/new', async (request, reply) => {
    const s = session(request);
    const form = formBody(request);
    const values = Object.fromEntries(Object.keys(FIELDS).map((k) => [k, formValue(form, k)])) as Values;
    const known = new Set(SERVICE_TYPE_CHOICES.map((c) => c.name));
    values['encounter.serviceTypes'] = formValues(form, 'encounter.serviceTypes')
      .filter((n) => known.has(n))
      .join(',');
    const providers = await listProviders(deps.db, s.user.organizationId);
    const resolved = withChosenProvider(values, providers);
    if ('problem' in resolved)
      return sendPage(reply, runPage(s, payers, values, [resolved.problem], undefined, providers), 400);
    const submitted = await submitCheck(deps.db, s.user.organizationId, buildCheckRequest(resolved.values), {
      wake: () => portal.checksNotifier.notify(),
      payers: deps.payers,
    });
    if (!submitted.ok) {
      const problems =
        'problems' in submitted ? submitted.problems : [{ field: 'body', problem: submitted.conflict }];
      // Shown with what was typed (a picked provider's details stay out of the "Other provider" fields).
      return sendPage(reply, runPage(s, payers, values, problems, undefined, providers), 400);
    }
    // Counted like an API check (the payer id as the form sent it, as the API counts what clients send).
    portal.metrics?.submitted(values.tradingPartnerServiceId);
    request.log.info({ userId: s.user.id, checkId: submitted.id }, 'check submitted from the portal');
    return seeOther(reply, `/portal/checks/${submitted.id}`);
  });
};
