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
import { createApiKey, listApiKeys, revokeApiKey, SCOPES } from '../../tenancy/api-keys.ts';
import { ownerOnly, ownerOnlyById } from '../access.ts';
import { notFound, noticeOf, type PortalDeps, seeOther, sendPage, session } from '../context.ts';
import { formBody, formValue, formValues } from '../forms.ts';
import { API_KEYS, type CreateForm, keyNotFoundPage, keysPage, revokeKeyPage } from '../views/api-keys.ts';

const NEW_KEY_PATH = `${API_KEYS}/new-key`;
const NEW_KEY_TTL_MS = 5 * 60_000;

/** What the one-time cookie holds, sealed. */
interface NewKeyView {
  key: string;
  keyId: string;
  userId: string;
  expiresAt: number;
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
      return seeOther(reply, `${API_KEYS}?notice=key-shown-once`);
    }
    return sendPage(reply, keysPage(s, keys, { created: { key: view.key, record } }));
  });

  const activeKey = async (organizationId: string, id: string) =>
    (await listApiKeys(deps.db, organizationId)).find((k) => k.id === id && !k.revokedAt);

  portal.get('/settings/api-keys/:id/revoke', ownerOnlyById, async (request, reply) => {
    const s = session(request);
    const key = await activeKey(s.user.organizationId, request.params.id);
    if (!key) return notFound(request, reply);
    return sendPage(reply, revokeKeyPage(s, key));
  });

  portal.post('/settings/api-keys/:id/revoke', ownerOnlyById, async (request, reply) => {
    const s = session(request);
    const id = request.params.id;
    const revoked = await revokeApiKey(deps.db, s.user.organizationId, id);
    if (!revoked) {
      return sendPage(reply, keyNotFoundPage(s), 404);
    }
    request.log.info({ userId: s.user.id, keyId: id }, 'API key revoked in the portal');
    return seeOther(reply, `${API_KEYS}?notice=key-revoked`);
  });
};
