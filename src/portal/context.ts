/**
 * What every portal route shares: its dependencies, the signed-in session on the request, and small helpers
 * to answer with a page, a redirect or the 404 page. Reading form fields and query values is forms.ts.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { Config } from '../config.ts';
import type { PayerDirectory } from '../payers/directory.ts';
import type { Db } from '../store/db.ts';
import type { PortalSession } from '../tenancy/sessions.ts';
import type { SecretBox } from '../webhooks/signing-secrets.ts';
import { queryValue } from './forms.ts';
import type { SafeHtml } from './html.ts';
import { messagePage } from './layout.ts';
import { noticeFor } from './notices.ts';
import type { PasswordVerifier } from './passwords.ts';

/**
 * The configuration the portal reads, under the names it has in src/config.ts (`portalSettings` in index.ts
 * picks it from the whole): ELIG_ALLOW_PRIVATE_WEBHOOKS; PUBLIC_URL, the base of every link the portal hands
 * out (when https, pages also send HSTS); BATCH_MAX_PENDING_CHECKS for batches uploaded on the Batches page
 * MONITOR_MAX_PER_ORGANIZATION and DISCOVERY_MAX_INQUIRIES_PER_DAY (Find coverage), each defaulting to its configured default when absent.
 */
export type PortalSettings = Pick<Config, 'allowPrivateWebhooks' | 'publicUrl'> &
  Partial<
    Pick<Config, 'batchMaxPendingChecks' | 'monitorMaxPerOrganization' | 'discoveryMaxInquiriesPerDay'>
  >;

export interface PortalDeps extends PortalSettings {
  db: Db;
  /** HMAC key of session cookies, one-time links and form tokens. */
  tokenKey: Buffer;
  /** HMAC key of the sign-in throttle's keys (`ServiceKeys.signInThrottleKey`). */
  signInThrottleKey: Buffer;
  /** Pepper of API key hashes (`ServiceKeys.apiKeyPepper`): needed to create keys. */
  apiKeyPepper: Buffer;
  /** Seals webhook signing secrets at rest. */
  box: SecretBox;
  /** The payer directory: the run-a-check picker, and aliases stored under their canonical id. */
  payers?: PayerDirectory;
  /** Adds `Secure` to cookies (and the `__Host-` prefix); on whenever the portal is served over HTTPS. */
  secureCookies: boolean;
  /** The sign-in throttle's clock, so tests move time instead of waiting out a backoff. Default: Date.now. */
  now?: () => number;
  /** Checks a sign-in password, so tests can count argon2 runs. Default: `verifyPassword` (passwords.ts). */
  verifyPassword?: PasswordVerifier;
  /** The address this process listens on: the base of links when PUBLIC_URL is not set. */
  listenUrl: () => string;
  /** OPERATOR_ORGANIZATION_ID: its owners see the Scorecard page (counts across every organization). */
  operatorOrganizationId?: string;
}

/**
 * An absolute link to a portal path, from configuration only: the request's Host header is the client's
 * to choose, so a link built from it could point a colleague at another site. `guessed` when PUBLIC_URL
 * is unset on PostgreSQL, where processes sit behind a load balancer whose address this one cannot know
 * (the same case in which `elig user create` warns).
 */
export function portalLink(deps: PortalDeps, path: string): { url: string; guessed: boolean } {
  return {
    url: `${deps.publicUrl ?? deps.listenUrl()}${path}`,
    guessed: deps.publicUrl === undefined && deps.db.kind === 'postgres',
  };
}

/**
 * Path parameters of the `/:id` pages (a check, an API key, a delivery): declared so the TypeBox type provider
 * types `request.params`; any string passes, and each handler answers 404 for an id it does not find.
 */
export const IdParams = Type.Object({ id: Type.String() });

declare module 'fastify' {
  interface FastifyRequest {
    portalSession?: PortalSession;
    /** The anonymous form token (sign-in forms, before there is a session). */
    portalFormToken?: string;
  }
}

export function session(request: FastifyRequest): PortalSession {
  const s = request.portalSession;
  if (!s) throw new Error('route requires a session');
  return s;
}

export function sendPage(reply: FastifyReply, page: SafeHtml, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(page.value);
}

/** 303 so the browser follows with a GET (POST/redirect/GET). Only paths under /portal are ever used. */
export function seeOther(reply: FastifyReply, path: string): FastifyReply {
  return reply.code(303).header('location', path).send();
}

/** The status line a redirect asked for (`?notice=key-created`), from the fixed table in notices.ts. */
export function noticeOf(request: FastifyRequest): string | undefined {
  return noticeFor(queryValue(request, 'notice'));
}

/** The 404 page: also what another organization's check, key or delivery looks like. */
export function notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendPage(
    reply,
    messagePage({
      title: 'Page not found',
      message: 'There is nothing at this address, or it belongs to another organization.',
      session: request.portalSession,
      action: { href: '/portal/checks', label: 'Go to checks' },
    }),
    404,
  );
}
