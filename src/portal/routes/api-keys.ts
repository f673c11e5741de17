/**
 * Settings > API keys: create a key (shown once, with a copy button), list keys, revoke with a
 * confirmation step. A revoke invalidates the API's key cache at once, here and in other processes.
 *
 * Creating is POST/redirect/GET with a one-time view: the POST seals the new key into a short-lived
 * cookie (AES-GCM with the service's secret box, bound to the user, five minutes) and redirects to
 * `/new-key`, which shows it once and clears the cookie. Reloading that page, or going back and forward,
 * shows the list and a notice instead of creating or showing a key again.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  type ApiKeyRecord,
  createApiKey,
  listApiKeys,
  revokeApiKey,
  SCOPES,
  type Scope,
} from '../../tenancy/api-keys.ts';
import type { PortalSession } from '../../tenancy/sessions.ts';
import { ownerOnly, ownerOnlyById } from '../access.ts';
import { notFound, noticeOf, type PortalDeps, seeOther, sendPage, session } from '../context.ts';
import { timestamp } from '../format.ts';
import { formBody, formValue, formValues } from '../forms.ts';
import { html, type SafeHtml } from '../html.ts';
import { copyable, csrfField, errorSummary, messagePage, page, settingsPage, textField } from '../layout.ts';

const BASE = '/portal/settings/api-keys';
const NEW_KEY_PATH = `${BASE}/new-key`;
const NEW_KEY_TTL_MS = 5 * 60_000;

/** What the one-time cookie holds, sealed. */
interface NewKeyView {
  key: string;
  keyId: string;
  userId: string;
  expiresAt: number;
}

const SCOPE_HELP: Record<Scope, string> = {
  'eligibility:read': 'read check results (GET /api/eligibility/{id}/status)',
  'eligibility:write': 'submit checks (POST /api/eligibility)',
};

interface CreateForm {
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
<td>${k.revokedAt ? '' : html`<a href="${BASE}/${k.id}/revoke">Revoke<span class="sr-only"> ${k.name}</span></a>`}</td>
</tr>`,
  )}</tbody></table></div>`;
}

function createForm(s: PortalSession, f: CreateForm): SafeHtml {
  const scopeError = f.errors.find((e) => e.field === 'scopes')?.message;
  return html`<section aria-labelledby="create-key">
<h2 id="create-key">Create a key</h2>
${errorSummary(f.errors)}
<form method="post" action="${BASE}" novalidate>
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

function keysPage(
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

export const apiKeyRoutes: FastifyPluginAsyncTypebox<PortalDeps> = async (portal, deps) => {
  const newKeyCookie = deps.secureCookies ? '__Secure-elig_new_key' : 'elig_new_key';
  const newKeyCookieOptions = {
    path: NEW_KEY_PATH,
    httpOnly: true,
    sameSite: 'strict' as const,
    secure: deps.secureCookies,
  };
  const openView = (sealed: string): NewKeyView | undefined => {
    try {
      return JSON.parse(deps.box.open(sealed)) as NewKeyView;
    } catch {
      return undefined;
    }
  };

  portal.get('/settings/api-keys', ownerOnly, async (request, reply) => {
    const s = session(request);
    const keys = await listApiKeys(deps.db, s.user.organizationId);
    return sendPage(reply, keysPage(s, keys, { notice: noticeOf(request) }));
  });

  portal.post('/settings/api-keys', ownerOnly, async (request, reply) => {
    const s = session(request);
    const body = formBody(request);
    const form: CreateForm = {
      name: formValue(body, 'name').trim(),
      scopes: formValues(body, 'scopes'),
      mode: formValue(body, 'mode') === 'live' ? 'live' : 'test',
      errors: [],
    };
    if (!form.name) form.errors.push({ field: 'name', message: 'Enter a name for the key.' });
    else if (form.name.length > 100)
      form.errors.push({ field: 'name', message: 'Use at most 100 characters for the name.' });
    const scopes = SCOPES.filter((sc) => form.scopes.includes(sc));
    if (!scopes.length || scopes.length !== new Set(form.scopes).size)
      form.errors.push({ field: 'scopes', message: 'Choose at least one permission.' });
    if (form.errors.length) {
      const keys = await listApiKeys(deps.db, s.user.organizationId);
      return sendPage(reply, keysPage(s, keys, { form }), 400);
    }
    const created = await createApiKey(deps.db, deps.apiKeyPepper, {
      organizationId: s.user.organizationId,
      name: form.name,
      scopes,
      mode: form.mode as 'test' | 'live',
    });
    request.log.info({ userId: s.user.id, keyId: created.record.id }, 'API key created in the portal');
    const view: NewKeyView = {
      key: created.key,
      keyId: created.record.id,
      userId: s.user.id,
      expiresAt: Date.now() + NEW_KEY_TTL_MS,
    };
    reply.setCookie(newKeyCookie, deps.box.seal(JSON.stringify(view)), {
      ...newKeyCookieOptions,
      maxAge: NEW_KEY_TTL_MS / 1000,
    });
    return seeOther(reply, NEW_KEY_PATH);
  });

  portal.get('/settings/api-keys/new-key', ownerOnly, async (request, reply) => {
    const s = session(request);
    const sealed = request.cookies[newKeyCookie];
    reply.clearCookie(newKeyCookie, newKeyCookieOptions);
    const view = sealed ? openView(sealed) : undefined;
    const keys = await listApiKeys(deps.db, s.user.organizationId);
    const record = keys.find((k) => k.id === view?.keyId && !k.revokedAt);
    if (!view || !record || view.userId !== s.user.id || view.expiresAt < Date.now()) {
      return seeOther(reply, `${BASE}?notice=key-shown-once`);
    }
    return sendPage(reply, keysPage(s, keys, { created: { key: view.key, record } }));
  });

  const activeKey = async (organizationId: string, id: string) =>
    (await listApiKeys(deps.db, organizationId)).find((k) => k.id === id && !k.revokedAt);

  portal.get('/settings/api-keys/:id/revoke', ownerOnlyById, async (request, reply) => {
    const s = session(request);
    const key = await activeKey(s.user.organizationId, request.params.id);
    if (!key) return notFound(request, reply);
    return sendPage(
      reply,
      page({
        title: 'Revoke key',
        session: s,
        current: 'api-keys',
        body: html`<h1>Revoke “${key.name}”?</h1>
<p>Key <code>${key.prefix}…</code> stops working at once: every request that sends it gets
<code>401 UnauthorizedException</code>. This cannot be undone; to keep a system working, create its new key
first.</p>
<form method="post" action="${BASE}/${key.id}/revoke" class="actions">
  ${csrfField(s.csrfToken)}
  <button type="submit" class="danger">Revoke key</button>
  <a href="${BASE}">Cancel</a>
</form>`,
      }),
    );
  });

  portal.post('/settings/api-keys/:id/revoke', ownerOnlyById, async (request, reply) => {
    const s = session(request);
    const id = request.params.id;
    const revoked = await revokeApiKey(deps.db, s.user.organizationId, id);
    if (!revoked) {
      return sendPage(
        reply,
        messagePage({
          title: 'Key not found',
          message: 'That key does not exist in your organization, or it is already revoked.',
          session: s,
          action: { href: BASE, label: 'Back to API keys' },
        }),
        404,
      );
    }
    request.log.info({ userId: s.user.id, keyId: id }, 'API key revoked in the portal');
    return seeOther(reply, `${BASE}?notice=key-revoked`);
  });
};
