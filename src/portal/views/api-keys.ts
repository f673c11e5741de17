/**
 * Settings > API keys as a person reads it: the organization's keys, a new key shown once with a copy
 * button, the create form, and the confirmation before a key is revoked.
 */
import { type ApiKeyRecord, SCOPES, type Scope } from '../../tenancy/api-keys.ts';
import type { PortalSession } from '../../tenancy/sessions.ts';
import { timestamp } from '../format.ts';
import { html, type SafeHtml } from '../html.ts';
import { copyable, csrfField, errorSummary, messagePage, page, settingsPage, textField } from '../layout.ts';

export const API_KEYS = '/portal/settings/api-keys';

const SCOPE_HELP: Record<Scope, string> = {
  'eligibility:read': 'read check results (GET /api/eligibility/{id}/status)',
  'eligibility:write': 'submit checks (POST /api/eligibility)',
};

/** The create form as sent, and what is wrong with it. */
export interface CreateForm {
  name: string;
  scopes: string[];
  mode: string;
  errors: { field: string; message: string }[];
}

function keyTable(keys: ApiKeyRecord[]): SafeHtml {
  if (!keys.length) return html`<p>No keys yet.</p>`;
  return html`<div class="table-wrap" role="region" aria-label="API keys" tabindex="0"><table>
<thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Permissions</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
<tbody>${keys.map(
    (k) => html`<tr${k.revokedAt ? html` class="revoked"` : ''}>
<th scope="row">${k.name}</th>
<td><code>${k.prefix}</code></td>
<td>${k.scopes.map((s) => html`<span class="tag">${s}</span> `)}</td>
<td>${timestamp(k.createdAt)}</td>
<td>${k.lastUsedAt ? timestamp(k.lastUsedAt) : html`<span class="muted">never</span>`}</td>
<td>${k.revokedAt ? html`Revoked ${timestamp(k.revokedAt)}` : 'Active'}</td>
<td>${k.revokedAt ? '' : html`<a href="${API_KEYS}/${k.id}/revoke">Revoke<span class="sr-only"> ${k.name}</span></a>`}</td>
</tr>`,
  )}</tbody></table></div>`;
}

function createForm(s: PortalSession, f: CreateForm): SafeHtml {
  const scopeError = f.errors.find((e) => e.field === 'scopes')?.message;
  return html`<section aria-labelledby="create-key">
<h2 id="create-key">Create a key</h2>
${errorSummary(f.errors)}
<form method="post" action="${API_KEYS}" novalidate>
  ${csrfField(s.csrfToken)}
  ${textField({ name: 'name', label: 'Name', value: f.name, required: true, maxlength: 100, hint: 'Say where the key is used, e.g. "Front desk scheduler (production)".', error: f.errors.find((e) => e.field === 'name')?.message })}
  <fieldset id="f-scopes"${scopeError ? html` class="has-error" aria-describedby="f-scopes-error"` : ''}>
    <legend>Permissions</legend>
    ${scopeError ? html`<p class="error" id="f-scopes-error">${scopeError}</p>` : ''}
    ${SCOPES.map(
      (scope) =>
        html`<div class="check"><input type="checkbox" id="scope-${scope.replace(':', '-')}" name="scopes" value="${scope}"${
          f.scopes.includes(scope) ? html` checked` : ''
        }><label for="scope-${scope.replace(':', '-')}"><code>${scope}</code>: ${SCOPE_HELP[scope]}</label></div>`,
    )}
  </fieldset>
  <fieldset>
    <legend>Key type</legend>
    <div class="check"><input type="radio" id="mode-test" name="mode" value="test"${f.mode !== 'live' ? html` checked` : ''}><label for="mode-test">Test: development and the sandbox payer (<code>elig_test_…</code>)</label></div>
    <div class="check"><input type="radio" id="mode-live" name="mode" value="live"${f.mode === 'live' ? html` checked` : ''}><label for="mode-live">Live: production systems (<code>elig_live_…</code>)</label></div>
  </fieldset>
  <button type="submit">Create key</button>
</form>
</section>`;
}

/** The keys, the key just created (shown once) and the create form. */
export function keysPage(
  s: PortalSession,
  keys: ApiKeyRecord[],
  o: { form?: CreateForm; created?: { key: string; record: ApiKeyRecord }; notice?: string },
): SafeHtml {
  const form = o.form ?? { name: '', scopes: [...SCOPES], mode: 'test', errors: [] };
  return settingsPage(
    s,
    'api-keys',
    o.notice,
    html`<p>Software sends a key with every request: <code>Authorization: Key &lt;API key&gt;</code>. Keep keys in a
secrets store or environment variable, never in source control; give each system its own key and revoke keys
you no longer use.</p>
${
  o.created
    ? html`<section class="panel success" aria-labelledby="new-key">
<h2 id="new-key">Your new key: ${o.created.record.name}</h2>
<p><strong>Copy it now. You will not see this key again.</strong> If you lose it, create a new key and revoke
this one.</p>
${copyable('new-key-value', o.created.key, 'API key')}
</section>`
    : ''
}
<section aria-labelledby="keys"><h2 id="keys">Keys</h2>${keyTable(keys)}</section>
${createForm(s, form)}`,
  );
}

/** The confirmation step before a key stops working. */
export function revokeKeyPage(s: PortalSession, key: ApiKeyRecord): SafeHtml {
  return page({
    title: 'Revoke key',
    session: s,
    current: 'api-keys',
    body: html`<h1>Revoke “${key.name}”?</h1>
<p>Key <code>${key.prefix}…</code> stops working at once: every request that sends it gets
<code>401 UnauthorizedException</code>. This cannot be undone; to keep a system working, create its new key
first.</p>
<form method="post" action="${API_KEYS}/${key.id}/revoke" class="actions">
  ${csrfField(s.csrfToken)}
  <button type="submit" class="danger">Revoke key</button>
  <a href="${API_KEYS}">Cancel</a>
</form>`,
  });
}

/** A revoke of a key that is not there (another organization's, or revoked already). */
export function keyNotFoundPage(s: PortalSession): SafeHtml {
  return messagePage({
    title: 'Key not found',
    message: 'That key does not exist in your organization, or it is already revoked.',
    session: s,
    action: { href: API_KEYS, label: 'Back to API keys' },
  });
}
