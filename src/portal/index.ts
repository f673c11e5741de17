/**
 * The provider portal: server-rendered pages under /portal, in their own encapsulated Fastify scope so the
 * form parser, cookies, security headers and HTML error pages never touch the JSON API.
 *
 * Every request: security headers → session from the cookie → access rule of the route and origin of a
 * POST → (after the body is parsed) CSRF token of every POST. Routes declare their access in `config.access`
 * (default: signed in). The access rule runs in `onRequest`, before any body is read: an anonymous 8 MB
 * upload is refused without the server buffering or parsing it. The token is checked after parsing because
 * forms carry it as a hidden field in the body (multipart uploads too); moving it to the URL would put it in
 * logs and Referer headers, and the refusal that matters (who sends it) already happens first.
 */
import { readFileSync } from 'node:fs';
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyError,
  FastifyReply,
  FastifyRequest,
  RawServerDefault,
} from 'fastify';
import fp from 'fastify-plugin';
import Type from 'typebox';
import type { Config } from '../config.ts';
import { DatabaseUnavailableError } from '../store/db.ts';
import { findSession, purgeExpiredSessions } from '../tenancy/sessions.ts';
import type { Access } from './access.ts';
import { notFound, type PortalDeps, type PortalSettings, seeOther, sendPage } from './context.ts';
import { cookieNames, formTokenValid, tokensEqual } from './csrf.ts';
import { formBody, formValue } from './forms.ts';
import { html } from './html.ts';
import { messagePage } from './layout.ts';
import { acceptMultipartForms } from './multipart.ts';
import { apiKeyRoutes } from './routes/api-keys.ts';
import { batchRoutes } from './routes/batches.ts';
import { checkRoutes } from './routes/checks.ts';
import { newCheckRoutes } from './routes/checks-new.ts';
import { resubmitCheckRoutes } from './routes/checks-resubmit.ts';
import { discoveryRoutes } from './routes/discovery.ts';
import { feeRoutes } from './routes/fees.ts';
import { invitationRoutes } from './routes/invitations.ts';
import { monitorRoutes } from './routes/monitors.ts';
import { operatorRoutes } from './routes/operator.ts';
import { organizationRoutes } from './routes/organization.ts';
import { payerSearchRoutes } from './routes/payer-search.ts';
import { signInRoutes } from './routes/sign-in.ts';
import { teamRoutes } from './routes/team.ts';
import { webhookRoutes } from './routes/webhooks.ts';

export {
  createPortalUser,
  issuePasswordResetLink,
  PortalUserError,
} from '../tenancy/users.ts';

import { projectPath } from '../paths.ts';

const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; object-src 'none'; " +
  "base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

const SECURITY_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
  // Pages carry PHI and one-time secrets: never keep them in a shared or back/forward cache.
  'cache-control': 'no-store',
};

/** One year, subdomains included: the portal's pages carry PHI and session cookies. */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000; includeSubDomains';

const asset = (name: string, type: string) => ({
  type,
  body: readFileSync(projectPath('src', 'portal', 'assets', name)),
});
const ASSETS: Record<string, { type: string; body: Buffer }> = {
  'portal.css': asset('portal.css', 'text/css; charset=utf-8'),
  'print.css': asset('print.css', 'text/css; charset=utf-8'),
  'favicon.svg': asset('favicon.svg', 'image/svg+xml'),
  'portal.js': asset('portal.js', 'text/javascript; charset=utf-8'),
};

/** Every link the portal renders and every redirect it sends is absolute under this prefix. */
export const PORTAL_PREFIX = '/portal';

/** The portal's registration options: its dependencies, and the prefix its links assume. */
export type PortalOptions = PortalDeps & { prefix: typeof PORTAL_PREFIX };

/**
 * The portal's section of the configuration, and whether its cookies are `Secure`: when PUBLIC_URL is https,
 * else in production. The composition root spreads it into the portal's options.
 */
export function portalSettings(
  config: Pick<Config, keyof PortalSettings | 'env'>,
): PortalSettings & Pick<PortalDeps, 'secureCookies'> {
  return {
    allowPrivateWebhooks: config.allowPrivateWebhooks,
    publicUrl: config.publicUrl,
    batchMaxPendingChecks: config.batchMaxPendingChecks,
    monitorMaxPerOrganization: config.monitorMaxPerOrganization,
    discoveryMaxInquiriesPerDay: config.discoveryMaxInquiriesPerDay,
    secureCookies: config.publicUrl?.startsWith('https://') ?? config.env === 'production',
  };
}

/**
 * The portal as an encapsulated plugin: register it with `app.register(portalPlugin, { prefix: PORTAL_PREFIX,
 * ...deps })`. It decorates requests with the session only in its own scope, and its cookie and form
 * parsers, hooks and HTML error pages stay there too.
 */
// The type arguments give fastify-plugin the TypeBox plugin type, which it cannot infer from the function.
export const portalPlugin = fp<
  PortalOptions,
  RawServerDefault,
  TypeBoxTypeProvider,
  FastifyBaseLogger,
  FastifyPluginAsyncTypebox<PortalOptions>
>(
  async (portal, { prefix: _prefix, ...deps }) => {
    if (portal.prefix !== PORTAL_PREFIX) {
      throw new Error(`the portal must be registered with prefix ${PORTAL_PREFIX} (its links are absolute)`);
    }
    portal.decorateRequest('portalSession', undefined);
    portal.decorateRequest('portalFormToken', undefined);
    await portal.register(fastifyCookie);
    await portal.register(fastifyFormbody);
    acceptMultipartForms(portal);
    const names = cookieNames(deps.secureCookies);
    // Expired sessions are useless but linger until purged; once an hour is plenty.
    const purge = setInterval(() => void purgeExpiredSessions(deps.db).catch(() => {}), 3600_000).unref();
    portal.addHook('onClose', async () => clearInterval(purge));

    // HSTS only when the configured address is https: over plain http the header is ignored at best, and
    // a wrong PUBLIC_URL must not pin browsers to https for a year.
    const hsts = deps.publicUrl?.startsWith('https://') ?? false;
    portal.addHook('onRequest', async (request, reply) => {
      reply.headers(SECURITY_HEADERS);
      if (hsts) reply.header('strict-transport-security', STRICT_TRANSPORT_SECURITY);
      const value = request.cookies[names.session];
      if (value) request.portalSession = await findSession(deps.db, deps.tokenKey, value);
      const s = request.portalSession;
      if (s && s.user.role === 'owner' && s.user.organizationId === deps.operatorOrganizationId)
        s.operator = true;
      checkAccess(request, reply, deps);
      if (reply.sent) return reply;
    });
    portal.addHook('preHandler', async (request, reply) => {
      checkFormToken(request, reply, deps);
      if (reply.sent) return reply;
    });

    portal.get(
      '/assets/:name',
      { config: { access: 'anonymous' }, schema: { params: Type.Object({ name: Type.String() }) } },
      async (request, reply) => {
        const asset = ASSETS[request.params.name];
        if (!asset) return notFound(request, reply);
        return reply.header('cache-control', 'public, max-age=3600').type(asset.type).send(asset.body);
      },
    );
    portal.get('/', async (_request, reply) => seeOther(reply, '/portal/checks'));

    // Set before the route plugins below load, so that their routes answer with these pages. They get the
    // dependencies without the prefix: passed on, it would nest their routes under /portal/portal.
    portal.setNotFoundHandler((request, reply) => notFound(request, reply));
    portal.setErrorHandler((err: FastifyError | DatabaseUnavailableError, request, reply) => {
      if (err instanceof DatabaseUnavailableError) {
        request.log.warn({ reason: err.reason }, 'database unavailable');
        return sendPage(
          reply.header('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS)),
          messagePage({
            title: 'Briefly unavailable',
            message: 'The portal is briefly unavailable. Wait a few seconds, then try again.',
            session: request.portalSession,
          }),
          503,
        );
      }
      const status = err.statusCode ?? 500;
      if (status >= 400 && status < 500) {
        const tooLarge = status === 413;
        return sendPage(
          reply,
          messagePage({
            title: tooLarge ? 'Form too large' : 'Request not understood',
            message: tooLarge
              ? 'The form you sent is larger than the portal accepts.'
              : 'The portal could not read that request. Go back and try again.',
            session: request.portalSession,
          }),
          tooLarge ? 413 : 400,
        );
      }
      request.log.error({ err }, 'portal error');
      return sendPage(
        reply,
        messagePage({
          title: 'Something went wrong',
          message: `The portal hit an unexpected error (reference ${request.id}). Try again in a moment.`,
          session: request.portalSession,
        }),
        500,
      );
    });

    for (const routes of [
      signInRoutes,
      invitationRoutes,
      checkRoutes,
      newCheckRoutes,
      payerSearchRoutes,
      resubmitCheckRoutes,
      discoveryRoutes,
      batchRoutes,
      monitorRoutes,
      apiKeyRoutes,
      webhookRoutes,
      teamRoutes,
      organizationRoutes,
      feeRoutes,
      operatorRoutes,
    ]) {
      await portal.register(routes, deps);
    }
  },
  // Run-a-check and batch uploads wake the workers through the app's `checksNotifier` (from buildApp).
  { name: 'portal', decorators: { fastify: ['checksNotifier'] }, encapsulate: true },
);

/** What the API's 503 says too (src/api/errors.ts): a store outage is usually over within seconds. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * Applies the route's access rule, and refuses a POST named as sent from another site: in `onRequest`,
 * from the headers alone, so nobody's body is read before the portal knows who sends it.
 */
function checkAccess(request: FastifyRequest, reply: FastifyReply, deps: PortalDeps): void {
  const access: Access = request.routeOptions.config?.access ?? 'user';
  const session = request.portalSession;
  if (access !== 'anonymous' && !session) {
    const path = request.url.split('?')[0] ?? '/portal';
    const next = request.method === 'GET' && path !== '/portal' ? `?next=${encodeURIComponent(path)}` : '';
    seeOther(reply, `/portal/login${next}`);
    return;
  }
  if (access === 'owner' && session?.user.role !== 'owner') {
    sendPage(
      reply,
      messagePage({
        title: 'Owners only',
        message: 'Only an owner of your organization can change these settings. Ask an owner for help.',
        session,
      }),
      403,
    );
    return;
  }
  if (request.method === 'POST' && !sameOrigin(request, deps.publicUrl)) formRejected(request, reply);
}

/** Checks the CSRF token of every POST, once the body (which carries it) is parsed. */
function checkFormToken(request: FastifyRequest, reply: FastifyReply, deps: PortalDeps): void {
  if (request.method !== 'POST') return;
  const access: Access = request.routeOptions.config?.access ?? 'user';
  const session = request.portalSession;
  const presented = formValue(formBody(request), '_csrf');
  const valid =
    access === 'anonymous'
      ? formTokenValid(request, deps.tokenKey, deps.secureCookies, presented)
      : Boolean(session && presented && tokensEqual(session.csrfToken, presented));
  if (!valid) formRejected(request, reply);
}

function formRejected(request: FastifyRequest, reply: FastifyReply): void {
  request.log.warn({ route: request.routeOptions.url }, 'portal form rejected: missing or wrong CSRF token');
  sendPage(
    reply,
    messagePage({
      title: 'Form expired',
      message: html`This form was not sent from the current page of the portal, or it has expired. Go back, reload the page and try again.`,
      session: request.portalSession,
      action: { href: '/portal', label: 'Back to the portal' },
    }),
    403,
  );
}

/**
 * A second line behind the token: browsers mark cross-site requests (Sec-Fetch-Site) and name the origin of
 * a POST. With `Referrer-Policy: no-referrer` Chromium sends `Origin: null` for our own forms, so "null"
 * proves nothing either way and only a named foreign origin is refused. Ours is the Host the request came
 * to, or PUBLIC_URL's origin: behind a reverse proxy that rewrites Host, the browser names the public one.
 */
function sameOrigin(request: FastifyRequest, publicUrl: string | undefined): boolean {
  if (request.headers['sec-fetch-site'] === 'cross-site') return false;
  const origin = request.headers.origin;
  if (!origin || origin === 'null') return true;
  try {
    const named = new URL(origin);
    if (named.host === request.headers.host) return true;
    return publicUrl !== undefined && named.origin === new URL(publicUrl).origin;
  } catch {
    return false;
  }
}
