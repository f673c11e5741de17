/**
 * Settings > Organization (owners): the time zone the portal shows times in, for everyone in the
 * organization (unset, each browser shows its own zone; either way UTC is on hover), and the default
 * reuse window of checks (issue 17 section 2: no paid re-checks; off unless set), and the providers the
 * run-a-check form offers (issue 26 item 13): added with an NPI the API would accept, removed, one the default.
 * Members use the providers on the form; only owners change them.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { isValidNpi } from '../../checks/request.ts';
import { MAX_REUSE_WITHIN_HOURS } from '../../contract/check-request.ts';
import { MAX_DISCOVERY_PAYERS } from '../../contract/discovery.ts';
import { namedPayers } from '../../discovery/submit.ts';
import { createPayerDirectory } from '../../payers/directory.ts';
import {
  findDiscoveryPayers,
  findReuseWithinHours,
  findTimeZone,
  updateDiscoveryPayers,
} from '../../store/organizations.ts';
import {
  isKnownTimeZone,
  isReuseWindow,
  setReuseWithinHours,
  setTimeZone,
} from '../../tenancy/organizations.ts';
import {
  addProvider,
  listProviders,
  MAX_PROVIDER_NAME,
  MAX_PROVIDERS,
  type ProviderChange,
  removeProvider,
  setDefaultProvider,
} from '../../tenancy/providers.ts';
import { ownerOnly } from '../access.ts';
import { noticeOf, type PortalDeps, seeOther, sendPage, session } from '../context.ts';
import { type Form, formBody, formValue } from '../forms.ts';
import {
  type OrganizationSettings,
  organizationPage,
  REUSE_FIELD,
  TIME_ZONE_FIELD,
} from '../views/organization.ts';
import { DISCOVERY_PAYERS_FIELD } from '../views/organization-discovery.ts';
import { PROVIDER_FIELDS, type ProvidersForm } from '../views/organization-providers.ts';

async function settingsOf(deps: PortalDeps, organizationId: string): Promise<OrganizationSettings> {
  const [zone, reuse, providers, discovery] = await Promise.all([
    findTimeZone(deps.db, organizationId),
    findReuseWithinHours(deps.db, organizationId),
    listProviders(deps.db, organizationId),
    findDiscoveryPayers(deps.db, organizationId),
  ]);
  return {
    zone: zone?.timeZone ?? null,
    reuseWithinHours: reuse?.reuseWithinHours ?? null,
    providers,
    discoveryPayers: discovery?.discoveryPayers ?? null,
  };
}

/** The problems of a provider to add, in the words of the form (the NPI check is the API's own). */
function providerProblems(name: string, npi: string): ProvidersForm['errors'] {
  const errors: ProvidersForm['errors'] = [];
  if (!name || name.length > MAX_PROVIDER_NAME)
    errors.push({
      field: PROVIDER_FIELDS.name,
      message: `Enter the provider's name or organization name (up to ${MAX_PROVIDER_NAME} characters).`,
    });
  if (!/^[0-9]{10}$/.test(npi))
    errors.push({ field: PROVIDER_FIELDS.npi, message: 'Enter the 10-digit NPI, e.g. 1234567893.' });
  else if (!isValidNpi(npi))
    errors.push({
      field: PROVIDER_FIELDS.npi,
      message: "That NPI has an invalid check digit: compare it with the provider's records.",
    });
  return errors;
}

const REFUSED: Record<Exclude<ProviderChange, { ok: true }>['reason'], ProvidersForm['errors'][number]> = {
  duplicate: { field: PROVIDER_FIELDS.npi, message: 'A provider with that NPI is already in the list.' },
  full: {
    field: PROVIDER_FIELDS.name,
    message: `The list holds at most ${MAX_PROVIDERS} providers: remove one first.`,
  },
  unknown: { field: PROVIDER_FIELDS.name, message: 'That provider is no longer in the list.' },
};

const REFUSED_UNKNOWN: ProviderChange = { ok: false, reason: 'unknown' };

/** The provider a remove or make-default button names: its NPI, 10 digits or nothing. */
function npiOf(form: Form): string {
  const npi = formValue(form, 'npi').trim();
  return /^[0-9]{10}$/.test(npi) ? npi : '';
}

export const organizationRoutes: FastifyPluginAsyncTypebox<PortalDeps> = async (portal, deps) => {
  portal.get('/settings/organization', ownerOnly, async (request, reply) => {
    const s = session(request);
    const notice = noticeOf(request);
    return sendPage(reply, organizationPage(s, await settingsOf(deps, s.user.organizationId), { notice }));
  });

  portal.post('/settings/organization/time-zone', ownerOnly, async (request, reply) => {
    const s = session(request);
    const chosen = formValue(formBody(request), TIME_ZONE_FIELD).trim();
    if (chosen && !isKnownTimeZone(chosen)) {
      const error = 'Choose a time zone from the list, e.g. America/Chicago.';
      const settings = await settingsOf(deps, s.user.organizationId);
      return sendPage(reply, organizationPage(s, settings, { error, chosen: '' }), 400);
    }
    await setTimeZone(deps.db, s.user.organizationId, chosen || null);
    request.log.info({ userId: s.user.id }, 'organization time zone changed');
    return seeOther(reply, '/portal/settings/organization?notice=time-zone-saved');
  });

  portal.post('/settings/organization/reuse', ownerOnly, async (request, reply) => {
    const s = session(request);
    const typed = formValue(formBody(request), REUSE_FIELD).trim();
    const hours = typed === '' ? null : /^\d{1,3}$/.test(typed) ? Number(typed) : Number.NaN;
    if (hours !== null && !isReuseWindow(hours)) {
      const reuseError = `Enter a whole number of hours from 1 to ${MAX_REUSE_WITHIN_HOURS}, e.g. 24, or leave it empty to turn reuse off.`;
      const settings = await settingsOf(deps, s.user.organizationId);
      // The typed text is the owner's own input, escaped by the template; it is no PHI.
      return sendPage(
        reply,
        organizationPage(s, settings, { reuseError, reuseTyped: typed.slice(0, 20) }),
        400,
      );
    }
    await setReuseWithinHours(deps.db, s.user.organizationId, hours);
    request.log.info({ userId: s.user.id, reuseWithinHours: hours }, 'organization reuse window changed');
    return seeOther(reply, '/portal/settings/organization?notice=reuse-saved');
  });

  // The payers a discovery asks by default: each a directory payer that takes demographic searches.
  portal.post('/settings/organization/discovery-payers', ownerOnly, async (request, reply) => {
    const s = session(request);
    const typed = formValue(formBody(request), DISCOVERY_PAYERS_FIELD);
    const ids = typed.split(/[\s,]+/).filter(Boolean);
    const checked =
      ids.length > MAX_DISCOVERY_PAYERS
        ? `Name at most ${MAX_DISCOVERY_PAYERS} payers.`
        : namedPayers(ids, deps.payers ?? createPayerDirectory([]), 'payer');
    if (typeof checked === 'string') {
      const settings = await settingsOf(deps, s.user.organizationId);
      // The typed ids are the owner's own input (payer ids, no PHI), escaped by the template.
      const discoveryError = checked.replace(/^Invalid request: /, '');
      const page = organizationPage(s, settings, { discoveryError, discoveryTyped: typed.slice(0, 600) });
      return sendPage(reply, page, 400);
    }
    await updateDiscoveryPayers(deps.db, s.user.organizationId, checked.length ? checked : null);
    request.log.info({ userId: s.user.id, payers: checked.length }, 'organization discovery payers changed');
    return seeOther(reply, '/portal/settings/organization?notice=discovery-payers-saved#discovery-payers');
  });

  /** The providers page again with a refused change's problems (400); its typed values are the owner's, no PHI. */
  const refusedProviders = async (
    request: Parameters<typeof session>[0],
    reply: Parameters<typeof sendPage>[0],
    form: ProvidersForm,
  ) => {
    const s = session(request);
    const settings = await settingsOf(deps, s.user.organizationId);
    return sendPage(reply, organizationPage(s, settings, { providers: form }), 400);
  };

  portal.post('/settings/organization/providers', ownerOnly, async (request, reply) => {
    const s = session(request);
    const form = formBody(request);
    const name = formValue(form, PROVIDER_FIELDS.name).trim();
    const npi = formValue(form, PROVIDER_FIELDS.npi).replace(/[\s-]/g, '');
    const isDefault = formValue(form, PROVIDER_FIELDS.isDefault) === 'yes';
    const typed = { name: name.slice(0, 100), npi: npi.slice(0, 20), isDefault };
    const errors = providerProblems(name, npi);
    if (errors.length) return refusedProviders(request, reply, { errors, ...typed });
    const added = await addProvider(deps.db, s.user.organizationId, { name, npi, isDefault });
    if (!added.ok) return refusedProviders(request, reply, { errors: [REFUSED[added.reason]], ...typed });
    request.log.info({ userId: s.user.id }, 'organization provider added');
    return seeOther(reply, '/portal/settings/organization?notice=provider-added#providers');
  });

  for (const [path, run, notice] of [
    ['remove', removeProvider, 'provider-removed'],
    ['default', setDefaultProvider, 'provider-default'],
  ] as const) {
    portal.post(`/settings/organization/providers/${path}`, ownerOnly, async (request, reply) => {
      const s = session(request);
      const npi = npiOf(formBody(request));
      const changed = npi ? await run(deps.db, s.user.organizationId, npi) : REFUSED_UNKNOWN;
      if (!changed.ok) return refusedProviders(request, reply, { errors: [REFUSED[changed.reason]] });
      request.log.info(
        { userId: s.user.id },
        `organization provider ${path === 'remove' ? 'removed' : 'made default'}`,
      );
      return seeOther(reply, `/portal/settings/organization?notice=${notice}#providers`);
    });
  }
};
