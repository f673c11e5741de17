/**
 * The check page's "Collect at desk" panel (docs/estimates.md): the estimates of the charges the check was
 * submitted with, and a form to estimate other charges against the same result (answered at once, with no
 * payer call and nothing stored). The steps and assumptions read as the print view's.
 */

import { PRIMARY_CODE } from '../../benefits/service-types.ts';
import type { CollectSummary } from '../../checks/collect-summary.ts';
import type { PortalSession } from '../../tenancy/sessions.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField } from '../layout.ts';
import { collectHtml } from './check-print.ts';

/** Rows of the form: a visit rarely has more charges at the desk. */
export const COLLECT_FORM_ROWS = 4;

export interface CollectForm {
  rows: { serviceType: string; amount: string; procedureCode: string }[];
  problems: string[];
}

export const EMPTY_COLLECT_FORM: CollectForm = { rows: [], problems: [] };

const SERVICE_TYPES = Object.keys(PRIMARY_CODE);

function chargeRow(i: number, row: CollectForm['rows'][number] | undefined): SafeHtml {
  const chosen = row?.serviceType ?? '';
  return html`<tr>
<td><label class="sr-only" for="c${i}-type">Service type ${i + 1}</label><select id="c${i}-type" name="serviceType"><option value="">(none)</option>${SERVICE_TYPES.map(
    (t) => html`<option value="${t}"${chosen === t ? html` selected` : ''}>${t}</option>`,
  )}</select></td>
<td><label class="sr-only" for="c${i}-amount">Allowed amount ${i + 1}</label><input id="c${i}-amount" name="amount" inputmode="decimal" size="10" value="${row?.amount ?? ''}" placeholder="120.00"></td>
<td><label class="sr-only" for="c${i}-code">Procedure code ${i + 1}</label><input id="c${i}-code" name="procedureCode" size="8" value="${row?.procedureCode ?? ''}" placeholder="97110"></td>
</tr>`;
}

export function collectPanel(
  s: PortalSession,
  checkId: string,
  fromRequest: CollectSummary | undefined,
  asked: CollectSummary | undefined,
  form: CollectForm,
): SafeHtml {
  return html`<section class="panel collect" aria-labelledby="collect-h"><h2 id="collect-h">Collect at desk</h2>
${fromRequest ? html`<p class="muted">The charges sent with this check:</p>${collectHtml(fromRequest)}` : ''}
${asked ? html`<div role="status">${collectHtml(asked)}</div>` : ''}
${
  form.problems.length
    ? html`<div class="error-summary" role="alert"><p>The charges could not be estimated:</p><ul>${form.problems.map(
        (p) => html`<li>${p}</li>`,
      )}</ul></div>`
    : ''
}
<form method="post" action="/portal/checks/${checkId}/estimate">${csrfField(s.csrfToken)}
<p>Estimate charges against this result (no payer call). Leave the amount empty to price a procedure code from the fee schedule.</p>
<div class="table-wrap" role="region" aria-label="Charges to estimate" tabindex="0"><table><thead><tr><th scope="col">Service type</th><th scope="col">Allowed amount ($)</th><th scope="col">Procedure code</th></tr></thead>
<tbody>${Array.from({ length: COLLECT_FORM_ROWS }, (_, i) => chargeRow(i, form.rows[i]))}</tbody></table></div>
<button type="submit">Estimate</button></form></section>`;
}
