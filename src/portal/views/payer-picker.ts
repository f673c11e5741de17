/**
 * The payer field of "Run a check": staff pick a payer by name, not by a clearinghouse id they would have
 * to look up. A `<select>` while the directory is small; beyond that a text field with a datalist, since a
 * select of thousands of payers cannot be searched; with portal.js, the field suggests payers as one types,
 * ranked by /portal/payers (typos and abbreviations forgiven). The sandbox comes first, the others by name. The form
 * still posts the id, and the API's rules apply to it (an id outside the directory fails with SH01).
 */
import type { ListedPayer } from '../../payers/directory.ts';
import { html, type SafeHtml } from '../html.ts';
import { fieldId, textField } from '../layout.ts';

export const SELECT_LIMIT = 200;

export function payerPicker(o: {
  name: string;
  label: string;
  payers: readonly ListedPayer[];
  value: string;
  error?: string;
}): SafeHtml {
  const payers = ordered(o.payers);
  const id = fieldId(o.name);
  const errorText = o.error ? html`<p class="error" id="${id}-error">${o.error}</p>` : '';
  const invalid = o.error ? html` aria-invalid="true"` : '';
  if (!payers.length) {
    return textField({
      name: o.name,
      label: o.label,
      value: o.value,
      required: true,
      error: o.error,
      autocomplete: 'off',
    });
  }
  if (payers.length > SELECT_LIMIT) {
    return html`<div class="field${o.error ? ' has-error' : ''}">
  <label for="${id}">${o.label}</label>
  <p class="hint" id="${id}-hint">Type a payer name or id.</p>
  ${errorText}
  <input id="${id}" name="${o.name}" type="text" value="${o.value}" required autocomplete="off" list="${id}-list" data-payer-search="/portal/payers" aria-describedby="${id}-hint${o.error ? ` ${id}-error` : ''}"${invalid}>
  <datalist id="${id}-list">${payers.map((p) => html`<option value="${p.id}" label="${p.name}"></option>`)}</datalist>
</div>`;
  }
  const chosen = payers.find((p) => p.id === o.value || p.aliases.includes(o.value))?.id;
  const describedBy = o.error ? html` aria-describedby="${id}-error"` : '';
  return html`<div class="field${o.error ? ' has-error' : ''}">
  <label for="${id}">${o.label}</label>
  ${errorText}
  <select id="${id}" name="${o.name}" required${describedBy}${invalid}>${
    chosen ? '' : html`<option value="" selected>Choose a payer</option>`
  }${payers.map(
    (p) =>
      html`<option value="${p.id}"${p.id === chosen ? html` selected` : ''}>${p.name} (${p.id})</option>`,
  )}</select>
</div>`;
}

/** The sandbox first (it is where people try things), then the others by name. */
function ordered(payers: readonly ListedPayer[]): ListedPayer[] {
  const sandbox = payers.filter((p) => p.connectorType === 'sandbox');
  const others = payers
    .filter((p) => p.connectorType !== 'sandbox')
    .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  return [...sandbox, ...others];
}
