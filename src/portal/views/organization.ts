/**
 * Settings > Organization as an owner reads it: the time zone the portal shows times in, the default
 * reuse window of checks, each with its current value and a form to change it, and the providers the
 * run-a-check form offers.
 */
import { MAX_REUSE_WITHIN_HOURS } from '../../contract/check-request.ts';
import { knownTimeZones } from '../../tenancy/organizations.ts';
import type { OrganizationProvider } from '../../tenancy/providers.ts';
import type { PortalSession } from '../../tenancy/sessions.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, errorSummary, fieldId, settingsPage } from '../layout.ts';
import { discoveryPayersSection } from './organization-discovery.ts';
import { type ProvidersForm, providersSection } from './organization-providers.ts';

/** The form fields: the zone's name, and the hours of the reuse window. */
export const TIME_ZONE_FIELD = 'timeZone';
export const REUSE_FIELD = 'reuseWithinHours';

/** What the page shows: the organization's time zone and reuse window (null: not set), and its providers. */
export interface OrganizationSettings {
  zone: string | null;
  reuseWithinHours: number | null;
  providers: readonly OrganizationProvider[];
  /** The payers a discovery asks when its request names none; null: every payer that searches. */
  discoveryPayers: readonly string[] | null;
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

/** The time zone, reuse window and providers forms, each with its problem when a save was refused. */
export function organizationPage(
  s: PortalSession,
  settings: OrganizationSettings,
  o: {
    notice?: string;
    error?: string;
    chosen?: string;
    reuseError?: string;
    reuseTyped?: string;
    providers?: ProvidersForm;
    discoveryError?: string;
    discoveryTyped?: string;
  } = {},
): SafeHtml {
  const id = fieldId(TIME_ZONE_FIELD);
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
${errorSummary(o.error ? [{ field: TIME_ZONE_FIELD, message: o.error }] : [])}
<form method="post" action="/portal/settings/organization/time-zone" novalidate>
  ${csrfField(s.csrfToken)}
  <div class="field${o.error ? ' has-error' : ''}">
  <label for="${id}">Time zone</label>
  ${o.error ? html`<p class="error" id="${id}-error">${o.error}</p>` : ''}
  <select id="${id}" name="${TIME_ZONE_FIELD}"${o.error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}>
  <option value=""${selected === '' ? html` selected` : ''}>Each person's browser zone</option>
  ${knownTimeZones().map((z) => html`<option value="${z}"${z === selected ? html` selected` : ''}>${z}</option>`)}
  </select>
  </div>
  <button type="submit">Save time zone</button>
</form></section>
${reuseSection(s, settings.reuseWithinHours, { error: o.reuseError, typed: o.reuseTyped })}
${providersSection(s, settings.providers, o.providers)}
${discoveryPayersSection(s, settings.discoveryPayers, { error: o.discoveryError, typed: o.discoveryTyped })}`,
  );
}
