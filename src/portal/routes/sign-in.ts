/**
 * Signing in and out: email + password, one-time links (first sign-in, invitation, password reset) that
 * set a password and sign in, and sign-out. A new session (new cookie, new CSRF token) on every sign-in.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { createSession, endSession, endUserSessions } from '../../tenancy/sessions.ts';
import {
  consumeLoginToken,
  normalizeEmail,
  peekLoginToken,
  setPasswordHash,
  type TokenPurpose,
} from '../../tenancy/users.ts';
import { noticeOf, type PortalDeps, seeOther, sendPage } from '../context.ts';
import { cookieNames, cookieOptions, issueFormToken } from '../csrf.ts';
import { formBody, formValue, queryValue } from '../forms.ts';
import type { SafeHtml } from '../html.ts';
import { LoginThrottle } from '../login-throttle.ts';
import { hashPassword, newPasswordProblem, verifyPassword } from '../passwords.ts';
import { attemptSignIn } from '../sign-in-attempt.ts';
import { linkInvalidPage, setPasswordPage, signInPage, tooManyAttemptsPage } from '../views/sign-in.ts';

const anonymous = { config: { access: 'anonymous' as const } };
/** The one-time link's token; any string passes, the handler looks it up. */
const TokenParams = Type.Object({ token: Type.String() });

/** Where to go after signing in: only a portal path, never another site. */
function safeNext(next: string): string {
  return /^\/portal\/[A-Za-z0-9/_-]*$/.test(next) ? next : '/portal/checks';
}

type LinkHolder = NonNullable<Awaited<ReturnType<typeof peekLoginToken>>>;

/** A new session for the user: a new cookie, and the pre-sign-in form cookie cleared. */
export async function startSession(reply: FastifyReply, deps: PortalDeps, userId: string): Promise<void> {
  const { cookieValue } = await createSession(deps.db, deps.tokenKey, userId);
  const names = cookieNames(deps.secureCookies);
  reply.setCookie(names.session, cookieValue, cookieOptions(deps.secureCookies));
  reply.clearCookie(names.form, cookieOptions(deps.secureCookies));
}

export function formToken(deps: PortalDeps, request: FastifyRequest, reply: FastifyReply): string {
  return issueFormToken(request, reply, deps.tokenKey, deps.secureCookies);
}

/** The page a sign-in link opens: set a password when the link's purpose needs one, else a button. */
function linkPage(
  deps: PortalDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
  found: LinkHolder,
  error?: string,
): SafeHtml {
  return setPasswordPage({
    path: `/portal/login/${token}`,
    token: formToken(deps, request, reply),
    email: found.user.email,
    purpose: found.purpose,
    needsPassword: needsPassword(found.purpose, found.user.hasPassword),
    error,
  });
}

export const signInRoutes: FastifyPluginAsyncTypebox<PortalDeps> = async (portal, deps) => {
  const signInDeps = {
    db: deps.db,
    throttle: new LoginThrottle(deps.db, deps.signInThrottleKey, deps.now),
    verifyPassword: deps.verifyPassword ?? verifyPassword,
  };

  portal.get('/login', anonymous, async (request, reply) => {
    const next = safeNext(queryValue(request, 'next'));
    if (request.portalSession) return seeOther(reply, next);
    return sendPage(
      reply,
      signInPage({ token: formToken(deps, request, reply), next, notice: noticeOf(request) }),
    );
  });

  portal.post('/login', anonymous, async (request, reply) => {
    const form = formBody(request);
    const typed = formValue(form, 'email').trim();
    const password = formValue(form, 'password');
    const next = safeNext(formValue(form, 'next'));
    let email: string;
    let validEmail = true;
    try {
      email = normalizeEmail(typed);
    } catch {
      email = typed.toLowerCase();
      validEmail = false;
    }
    const outcome = await attemptSignIn(signInDeps, { email, validEmail, password, address: request.ip });
    if (outcome.kind === 'throttled') {
      const wait = outcome.retryAfterSeconds;
      request.log.warn('portal sign-in throttled');
      return sendPage(reply.header('retry-after', String(wait)), tooManyAttemptsPage(wait), 429);
    }
    if (outcome.kind === 'refused') {
      request.log.info('portal sign-in failed');
      return sendPage(
        reply,
        signInPage({
          token: formToken(deps, request, reply),
          email: typed,
          next,
          error: 'Email or password is incorrect.',
        }),
        401,
      );
    }
    const { user } = outcome;
    await startSession(reply, deps, user.id);
    request.log.info({ userId: user.id }, 'portal sign-in');
    return seeOther(reply, next);
  });

  portal.get('/login/:token', { ...anonymous, schema: { params: TokenParams } }, async (request, reply) => {
    const { token } = request.params;
    const found = await peekLoginToken(deps.db, deps.tokenKey, token);
    if (!found) return sendPage(reply, linkInvalidPage(), 410);
    return sendPage(reply, linkPage(deps, request, reply, token, found));
  });

  portal.post('/login/:token', { ...anonymous, schema: { params: TokenParams } }, (request, reply) =>
    signInWithLink(deps, signInDeps.throttle, request, reply, request.params.token),
  );

  portal.post('/logout', async (request, reply) => {
    const names = cookieNames(deps.secureCookies);
    const value = request.cookies[names.session];
    if (value) await endSession(deps.db, deps.tokenKey, value);
    reply.clearCookie(names.session, cookieOptions(deps.secureCookies));
    return seeOther(reply, '/portal/login?notice=signed-out');
  });
};

/**
 * A one-time link used: the new password checked and hashed first (when the link's purpose needs one), then
 * the link consumed and the password stored in one transaction, so a link works once.
 */
async function signInWithLink(
  deps: PortalDeps,
  throttle: LoginThrottle,
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
): Promise<FastifyReply> {
  const found = await peekLoginToken(deps.db, deps.tokenKey, token);
  if (!found) return sendPage(reply, linkInvalidPage(), 410);
  const setPassword = needsPassword(found.purpose, found.user.hasPassword);
  let passwordHash: string | undefined;
  if (setPassword) {
    const form = formBody(request);
    const password = formValue(form, 'password');
    const problem = newPasswordProblem(password, formValue(form, 'confirm'), found.user.email);
    if (problem) {
      return sendPage(reply, linkPage(deps, request, reply, token, found, problem), 400);
    }
    passwordHash = await hashPassword(password);
  }
  const consumed = await deps.db.transaction(async (tx) => {
    const used = await consumeLoginToken(tx, deps.tokenKey, token);
    if (!used) return undefined;
    if (passwordHash) {
      await setPasswordHash(tx, used.user.id, passwordHash);
      // A new password signs the account out everywhere else.
      await endUserSessions(tx, used.user.id);
    }
    return used;
  });
  if (!consumed) return sendPage(reply, linkInvalidPage(), 410);
  // The link is the way out of a throttled account (the 429 page says so): its wait ends here too.
  await throttle.signedIn(consumed.user.email);
  await startSession(reply, deps, consumed.user.id);
  request.log.info(
    { userId: consumed.user.id, purpose: consumed.purpose },
    'portal sign-in with one-time link',
  );
  return seeOther(reply, `/portal/checks?notice=${passwordHash ? 'password-set' : 'signed-in'}`);
}

/** Invitations and resets always set a password; a first-sign-in link only when none is set yet. */
function needsPassword(purpose: TokenPurpose, hasPassword: boolean): boolean {
  return purpose !== 'first-login' || !hasPassword;
}
