/**
 * Settings > Organization (owners): the time zone the portal shows times in, for everyone in the
 * organization (unset, each browser shows its own zone; either way UTC is on hover), and the default
 * reuse window of checks (issue 17 section 2: no paid re-checks; off unless set).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MAX_REUSE_WITHIN_HOURS } from '../../contract/check-request.ts';
import { findReuseWithinHours, findTimeZone } from '../../store/organizations.ts';
import {
  isKnownTimeZone,
  isReuseWindow,
  setReuseWithinHours,
  setTimeZone,
} from '../../tenancy/organizations.ts';
import { ownerOnly } from '../access.ts';
import { noticeOf, type PortalDeps, seeOther, sendPage, session } from '../context.ts';
import { formBody, formValue } from '../forms.ts';
import {
  type OrganizationSettings,
  organizationPage,
  REUSE_FIELD,
  TIME_ZONE_FIELD,
} from '../views/organization.ts';

async function settingsOf(deps: PortalDeps, organizationId: string): Promise<OrganizationSettings> {
  const [zone, reuse] = await Promise.all([
    findTimeZone(deps.db, organizationId),
    findReuseWithinHours(deps.db, organizationId),
  ]);
  return { zone: zone?.timeZone ?? null, reuseWithinHours: reuse?.reuseWithinHours ?? null };
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
};
