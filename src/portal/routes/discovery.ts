/**
 * /portal/discovery/new, "Find coverage" (insurance discovery, docs/discovery.md): a form that goes through
 * `submitDiscovery`, exactly like the API, so both accept and refuse the same requests; and
 * /portal/discovery/:id, the discovery's progress and the coverages found. Patient details travel only in
 * the POST body, never in a URL. Another organization's discovery is the portal's 404.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { readDiscovery } from '../../discovery/read.ts';
import { DEFAULT_DISCOVERY_MAX_INQUIRIES_PER_DAY, submitDiscovery } from '../../discovery/submit.ts';
import { UUID_PATTERN } from '../../ids.ts';
import { createPayerDirectory } from '../../payers/directory.ts';
import { defaultProvider, listProviders } from '../../tenancy/providers.ts';
import { IdParams, notFound, type PortalDeps, seeOther, sendPage, session } from '../context.ts';
import { formBody, formValue } from '../forms.ts';
import {
  DISCOVERY_FIELDS,
  type DiscoveryValues,
  discoveryPage,
  findCoveragePage,
} from '../views/discovery.ts';

/** `1980-01-15` (a date picker) and `19800115` both mean the same day. */
const date8 = (t: string) =>
  /^\d{4}[-/]\d{2}[-/]\d{2}$/.test(t.trim()) ? t.trim().replace(/[-/]/g, '') : t.trim();

function discoveryRequestOf(v: DiscoveryValues): Record<string, unknown> {
  const present = (x: string) => (x.trim() ? x.trim() : undefined);
  return JSON.parse(
    JSON.stringify({
      provider: {
        organizationName: present(v['provider.organizationName']),
        npi: present(v['provider.npi']),
      },
      patient: {
        firstName: present(v['patient.firstName']),
        lastName: present(v['patient.lastName']),
        dateOfBirth: present(date8(v['patient.dateOfBirth'])),
        state: present(v['patient.state'].toUpperCase()),
      },
      dateOfService: present(date8(v.dateOfService)),
    }),
  );
}

export const discoveryRoutes: FastifyPluginAsyncTypebox<PortalDeps> = async (portal, deps) => {
  portal.get('/discovery/new', async (request, reply) => {
    const s = session(request);
    const provider = defaultProvider(await listProviders(deps.db, s.user.organizationId));
    const blank = Object.fromEntries(Object.keys(DISCOVERY_FIELDS).map((k) => [k, ''])) as DiscoveryValues;
    blank['provider.organizationName'] = provider?.name ?? s.organizationName;
    blank['provider.npi'] = provider?.npi ?? '';
    return sendPage(reply, findCoveragePage(s, blank));
  });

  portal.post('/discovery/new', async (request, reply) => {
    const s = session(request);
    const form = formBody(request);
    const values = Object.fromEntries(
      Object.keys(DISCOVERY_FIELDS).map((k) => [k, formValue(form, k)]),
    ) as DiscoveryValues;
    const submitted = await submitDiscovery(deps.db, s.user.organizationId, discoveryRequestOf(values), {
      payers: deps.payers ?? createPayerDirectory([]),
      maxInquiriesPerDay: deps.discoveryMaxInquiriesPerDay ?? DEFAULT_DISCOVERY_MAX_INQUIRIES_PER_DAY,
      wake: () => portal.checksNotifier.notify(),
    });
    if (!submitted.ok) {
      const problem =
        'invalid' in submitted
          ? submitted.invalid
          : `Your organization asked ${submitted.overCap.askedToday} of at most ${submitted.overCap.limit} payers today (UTC); try again tomorrow.`;
      return sendPage(reply, findCoveragePage(s, values, problem), 'invalid' in submitted ? 400 : 429);
    }
    request.log.info(
      { userId: s.user.id, discoveryId: submitted.accepted.id },
      'discovery submitted from the portal',
    );
    return seeOther(reply, `/portal/discovery/${submitted.accepted.id}`);
  });

  portal.get('/discovery/:id', { schema: { params: IdParams } }, async (request, reply) => {
    const s = session(request);
    const { id } = request.params;
    const discovery = UUID_PATTERN.test(id)
      ? await readDiscovery(deps.db, s.user.organizationId, id)
      : undefined;
    if (!discovery) return notFound(request, reply);
    return sendPage(reply, discoveryPage(s, discovery));
  });
};
