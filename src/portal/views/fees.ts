/**
 * Settings > Fee schedule (owners): the organization's allowed amounts by procedure code, which price
 * estimate charges sent without an amount (docs/estimates.md), and the CSV upload that replaces them.
 */
import type { FeeRow } from '../../store/fee-schedule.ts';
import type { PortalSession } from '../../tenancy/sessions.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, page } from '../layout.ts';

export const FEES = '/portal/settings/fees';

export interface FeesView {
  total: number;
  rows: FeeRow[];
  /** A refused upload: its problems by line, and how many in all. */
  problems?: { line: number; message: string }[];
  problemCount?: number;
}

export function feesPage(s: PortalSession, v: FeesView, notice?: string): SafeHtml {
  const more = (v.problemCount ?? 0) - (v.problems?.length ?? 0);
  return page({
    title: 'Fee schedule',
    session: s,
    current: 'fees',
    notice,
    body: html`<h1>Fee schedule</h1>
<p>The allowed amount of each procedure code, for one payer or (payer empty) for every payer. A charge to estimate with a procedure code and no amount is priced from it: the payer's own row first, else the default.</p>
${
  v.problems?.length
    ? html`<div class="error-summary" role="alert" tabindex="-1"><h2>The file was not applied</h2>
<p>Nothing was changed: fix these rows and upload the file again.</p>
<ul>${v.problems.map((p) => html`<li>Line ${p.line}: ${p.message}</li>`)}</ul>${
        more > 0 ? html`<p>And ${more} more.</p>` : ''
      }</div>`
    : ''
}
<form method="post" action="${FEES}" enctype="multipart/form-data" class="panel">${csrfField(s.csrfToken)}
<h2>Upload a schedule</h2>
<p>A CSV with the columns <code>procedure_code</code>, <code>payer_id</code> (may be left out) and <code>allowed_amount</code> (dollars). Every row is checked first; a good file replaces the whole schedule.</p>
<div class="field"><label for="fees-file">CSV file</label><input id="fees-file" type="file" name="file" accept=".csv,text/csv" required></div>
<button type="submit">Upload and replace</button></form>
<h2>Current schedule</h2>
${
  v.total === 0
    ? html`<p>No fee schedule yet: charges need an amount.</p>`
    : html`<p>${v.total} row${v.total === 1 ? '' : 's'}${v.rows.length < v.total ? html`, the first ${v.rows.length} shown` : ''}.</p>
<table><thead><tr><th scope="col">Procedure code</th><th scope="col">Payer</th><th scope="col">Allowed amount</th></tr></thead>
<tbody>${v.rows.map(
        (r) =>
          html`<tr><td><code>${r.procedureCode}</code></td><td>${r.payerId || 'every payer'}</td><td>$${(r.amountCents / 100).toFixed(2)}</td></tr>`,
      )}</tbody></table>`
}`,
  });
}
