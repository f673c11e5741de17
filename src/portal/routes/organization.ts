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
  knownTimeZones,
  setReuseWithinHours,
  setTimeZone,
} from '../../tenancy/organizations.ts';
import type { PortalSession } from '../../tenancy/sessions.ts';
import { ownerOnly } from '../access.ts';
import { noticeOf, type PortalDeps, seeOther, sendPage, session } from '../context.ts';
import { formBody, formValue } from '../forms.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, errorSummary, fieldId, settingsPage } from '../layout.ts';

const FIELD = 'timeZone';
const REUSE_FIELD = 'reuseWithinHours';

interface Settings {
  zone: string | null;
  reuseWithinHours: number | null;
}

async function settingsOf(deps: PortalDeps, organizationId: string): Promise<Settings> {
  const [zone, reuse] = await Promise.all([
    findTimeZone(deps.db, organizationId),
    findReuseWithinHours(deps.db, organizationId),
  ]);
  return { zone: zone?.timeZone ?? null, reuseWithinHours: reuse?.reuseWithinHours ?? null };
}

function reuseSection(
  s: PortalSession,
  hours: number | null,
  o: { error?: string; typed?: string },
): SafeHtml {
  const id = fieldId(REUSE_FIELD);
  const value = o.typed ?? (hours === null ? '' : String(hours));
  return html`<section aria-labelledby="reuse"><h2 id="reuse">Reuse recent checks</h2>
<p>A check that asks the same question as a completed check of the last hours (same payer, provider NPI,
patient, service types and date of service) can be answered from that check instead of asking the payer again:
no paid re-check. It still gets its own id, webhook and page, which names the check it was answered from.
Failed checks are never reused. A submit can ask for its own window (<code>reuseWithinHours</code>, 0 for never).</p>
<p>Now: <strong>${hours === null ? 'off: every check asks the payer' : `checks are reused for ${hours} hour${hours === 1 ? '' : 's'}`}</strong>.</p>
${errorSummary(o.error ? [{ field: REUSE_FIELD, message: o.error }] : [])}
<form method="post" action="/portal/settings/organization/reuse" novalidate>
  ${csrfField(s.csrfToken)}
  <div class="field${o.error ? ' has-error' : ''}">
  <label for="${id}">Reuse checks that finished within (hours, 1 to ${MAX_REUSE_WITHIN_HOURS}; empty: off)</label>
  ${o.error ? html`<p class="error" id="${id}-error">${o.error}</p>` : ''}
  <input id="${id}" name="${REUSE_FIELD}" inputmode="numeric" value="${value}"${o.error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}>
  </div>
  <button type="submit">Save reuse window</button>
</form></section>`;
}

function organizationPage(
  s: PortalSession,
  settings: Settings,
  o: { notice?: string; error?: string; chosen?: string; reuseError?: string; reuseTyped?: string } = {},
): SafeHtml {
  const id = fieldId(FIELD);
  const zone = settings.zone;
  const selected = o.chosen ?? zone ?? '';
  return settingsPage(
    s,
    'organization',
    o.notice,
    html`<section aria-labelledby="tz"><h2 id="tz">Time zone</h2>
<p>Times in the portal (when a check was submitted and finished, when a key was last used) are shown in this
zone for everyone in ${s.organizationName}. Hover over a time to see it in UTC.</p>
<p>Now: <strong>${zone ?? "each person's browser zone"}</strong>.</p>
${errorSummary(o.error ? [{ field: FIELD, message: o.error }] : [])}
<form method="post" action="/portal/settings/organization/time-zone" novalidate>
  ${csrfField(s.csrfToken)}
  <div class="field${o.error ? ' has-error' : ''}">
  <label for="${id}">Time zone</label>
  ${o.error ? html`<p class="error" id="${id}-error">${o.error}</p>` : ''}
  <select id="${id}" name="${FIELD}"${o.error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}>
  <option value=""${selected === '' ? html` selected` : ''}>Each person's browser zone</option>
  ${knownTimeZones().map((z) => html`<option value="${z}"${z === selected ? html` selected` : ''}>${z}</option>`)}
  </select>
  </div>
  <button type="submit">Save time zone</button>
</form></section>
${reuseSection(s, settings.reuseWithinHours, { error: o.reuseError, typed: o.reuseTyped })}`,
  );
}

export const organizationRoutes: FastifyPluginAsyncTypebox<PortalDeps> = async (portal, deps) => {
  portal.get('/settings/organization', ownerOnly, async (request, reply) => {
    const s = session(request);
    const notice = noticeOf(request);
    return sendPage(reply, organizationPage(s, await settingsOf(deps, s.user.organizationId), { notice }));
  });

  portal.post('/settings/organization/time-zone', ownerOnly, async (request, reply) => {
    const s = session(request);
    const chosen = formValue(formBody(request), FIELD).trim();
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
