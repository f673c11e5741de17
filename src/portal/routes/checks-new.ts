/**
 * /portal/checks/new, "Run a check" for staff without software: a form that goes through `submitCheck`,
 * exactly like the API, so both accept and refuse the same requests. Member details travel only in the POST
 * body, never in a URL.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { submitCheck } from '../../checks/submit.ts';
import { listedPayer } from '../../payers/directory.ts';
import { type PortalDeps, seeOther, sendPage, session } from '../context.ts';
import { formBody, formValue } from '../forms.ts';
import { FIELDS, runPage, type Values } from '../views/checks-new.ts';

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
