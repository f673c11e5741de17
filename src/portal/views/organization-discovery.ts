/**
 * Settings > Organization, "Find coverage": the payers an insurance discovery asks when its request names
 * none (docs/discovery.md). Empty: every directory payer that takes demographic searches.
 */
import { MAX_DISCOVERY_PAYERS } from '../../contract/discovery.ts';
import type { PortalSession } from '../../tenancy/sessions.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, errorSummary, fieldId } from '../layout.ts';

export const DISCOVERY_PAYERS_FIELD = 'discoveryPayers';

export function discoveryPayersSection(
  s: PortalSession,
  payers: readonly string[] | null,
  o: { error?: string; typed?: string } = {},
): SafeHtml {
  const id = fieldId(DISCOVERY_PAYERS_FIELD);
  const value = o.typed ?? (payers ?? []).join(', ');
  return html`<section aria-labelledby="discovery-payers"><h2 id="discovery-payers">Find coverage</h2>
<p>The payers "Find coverage" (and <code>POST /api/eligibility/discovery</code> without <code>payers</code>)
asks about a patient known by name and date of birth. Each must take demographic searches.</p>
<p>Now: <strong>${payers?.length ? payers.join(', ') : 'every payer of the directory that takes demographic searches'}</strong>.</p>
${errorSummary(o.error ? [{ field: DISCOVERY_PAYERS_FIELD, message: o.error }] : [])}
<form method="post" action="/portal/settings/organization/discovery-payers" novalidate>
  ${csrfField(s.csrfToken)}
  <div class="field${o.error ? ' has-error' : ''}">
  <label for="${id}">Payer ids, separated by commas (up to ${MAX_DISCOVERY_PAYERS}; empty: every payer that searches)</label>
  ${o.error ? html`<p class="error" id="${id}-error">${o.error}</p>` : ''}
  <input id="${id}" name="${DISCOVERY_PAYERS_FIELD}" value="${value}" autocomplete="off"${o.error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}>
  </div>
  <button type="submit">Save discovery payers</button>
</form></section>`;
}
