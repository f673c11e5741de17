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
import { html, type SafeHtml } from '../html.ts';
import { csrfField, errorSummary, messagePage, page, textField } from '../layout.ts';
import { LoginThrottle } from '../login-throttle.ts';
import { hashPassword, newPasswordProblem, PASSWORD_MIN, verifyPassword } from '../passwords.ts';
import { attemptSignIn } from '../sign-in-attempt.ts';

const anonymous = { config: { access: 'anonymous' as const } };
/** The one-time link's token; any string passes, the handler looks it up. */
const TokenParams = Type.Object({ token: Type.String() });

/** Where to go after signing in: only a portal path, never another site. */
function safeNext(next: string): string {
  return /^\/portal\/[A-Za-z0-9/_-]*$/.test(next) ? next : '/portal/checks';
}

function loginForm(o: {
  token: string;
  email?: string;
  next?: string;
  error?: string;
  notice?: string;
}): SafeHtml {
  return page({
    title: 'Sign in',
    notice: o.notice,
    body: html`<div class="narrow">
<h1>Sign in</h1>
${o.error ? html`<div class="error-summary" role="alert"><p>${o.error}</p></div>` : ''}
<form method="post" action="/portal/login" novalidate>
  ${csrfField(o.token)}
  ${o.next ? html`<input type="hidden" name="next" value="${o.next}">` : ''}
  ${textField({ name: 'email', label: 'Email', type: 'email', value: o.email, required: true, autocomplete: 'username' })}
  ${textField({ name: 'password', label: 'Password', type: 'password', required: true, autocomplete: 'current-password' })}
  <button type="submit">Sign in</button>
</form>
<p class="muted">Forgot your password? Ask an owner of your organization for a new sign-in link (they make
one under Team, “New sign-in link”), or your operator (<code>elig user reset-password</code>).</p>
</div>`,
  });
}

const PURPOSE_TITLES: Record<TokenPurpose, string> = {
  'first-login': 'Welcome: choose a password',
  invite: 'Accept your invitation: choose a password',
  'password-reset': 'Choose a new password',
};

function setPasswordForm(o: {
  path: string;
  token: string;
  email: string;
  purpose: TokenPurpose;
  needsPassword: boolean;
  error?: string;
}): SafeHtml {
  const title = o.needsPassword ? PURPOSE_TITLES[o.purpose] : 'Continue to sign in';
  return page({
    title,
    body: html`<div class="narrow">
<h1>${title}</h1>
<p>This link signs in <strong>${o.email}</strong>. It works once.</p>
${errorSummary(o.error ? [{ field: 'password', message: o.error }] : [])}
<form method="post" action="${o.path}" novalidate>
  ${csrfField(o.token)}
  ${
    o.needsPassword
      ? html`<input type="hidden" name="username" value="${o.email}" autocomplete="username">
  ${textField({ name: 'password', label: 'New password', type: 'password', required: true, autocomplete: 'new-password', hint: `At least ${PASSWORD_MIN} characters. A passphrase of a few words is easiest to remember.`, error: o.error })}
  ${textField({ name: 'confirm', label: 'New password again', type: 'password', required: true, autocomplete: 'new-password' })}
  <button type="submit">Set password and sign in</button>`
      : html`<button type="submit">Sign in</button>`
  }
</form>
</div>`,
  });
}

type LinkHolder = NonNullable<Awaited<ReturnType<typeof peekLoginToken>>>;

function linkInvalid(): SafeHtml {
  return messagePage({
    title: 'This link no longer works',
    message:
      'Sign-in links work once and expire. If you already set a password, sign in with it; otherwise ask an owner of your organization (or your operator) for a new link.',
    action: { href: '/portal/login', label: 'Go to sign in' },
  });
}

async function startSession(reply: FastifyReply, deps: PortalDeps, userId: string): Promise<void> {
  const { cookieValue } = await createSession(deps.db, deps.tokenKey, userId);
  const names = cookieNames(deps.secureCookies);
  reply.setCookie(names.session, cookieValue, cookieOptions(deps.secureCookies));
  reply.clearCookie(names.form, cookieOptions(deps.secureCookies));
}

export const signInRoutes: FastifyPluginAsyncTypebox<PortalDeps> = async (portal, deps) => {
  const signInDeps = {
    db: deps.db,
    throttle: new LoginThrottle(deps.db, deps.signInThrottleKey, deps.now),
    verifyPassword: deps.verifyPassword ?? verifyPassword,
  };
  const formToken = (request: FastifyRequest, reply: FastifyReply) =>
    issueFormToken(request, reply, deps.tokenKey, deps.secureCookies);
  /** The page a sign-in link opens: set a password when the link's purpose needs one, else a button. */
  const linkPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    token: string,
    found: LinkHolder,
    error?: string,
  ) =>
    setPasswordForm({
      path: `/portal/login/${token}`,
      token: formToken(request, reply),
      email: found.user.email,
      purpose: found.purpose,
      needsPassword: needsPassword(found.purpose, found.user.hasPassword),
      error,
    });

  portal.get('/login', anonymous, async (request, reply) => {
    const next = safeNext(queryValue(request, 'next'));
    if (request.portalSession) return seeOther(reply, next);
    return sendPage(reply, loginForm({ token: formToken(request, reply), next, notice: noticeOf(request) }));
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
      return sendPage(
        reply.header('retry-after', String(wait)),
        messagePage({
          title: 'Too many attempts',
          message: `Too many failed sign-ins for this account. Wait ${Math.ceil(wait / 60)} minute(s) and try again, or ask an owner for a new sign-in link.`,
          action: { href: '/portal/login', label: 'Back to sign in' },
        }),
        429,
      );
    }
    if (outcome.kind === 'refused') {
      request.log.info('portal sign-in failed');
      return sendPage(
        reply,
        loginForm({
          token: formToken(request, reply),
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
    if (!found) return sendPage(reply, linkInvalid(), 410);
    return sendPage(reply, linkPage(request, reply, token, found));
  });

  portal.post('/login/:token', { ...anonymous, schema: { params: TokenParams } }, async (request, reply) => {
    const { token } = request.params;
    const found = await peekLoginToken(deps.db, deps.tokenKey, token);
    if (!found) return sendPage(reply, linkInvalid(), 410);
    const setPassword = needsPassword(found.purpose, found.user.hasPassword);
    let passwordHash: string | undefined;
    if (setPassword) {
      const form = formBody(request);
      const password = formValue(form, 'password');
      const problem = newPasswordProblem(password, formValue(form, 'confirm'), found.user.email);
      if (problem) {
        return sendPage(reply, linkPage(request, reply, token, found, problem), 400);
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
    if (!consumed) return sendPage(reply, linkInvalid(), 410);
    // The link is the way out of a throttled account (the 429 page says so): its wait ends here too.
    await signInDeps.throttle.signedIn(consumed.user.email);
    await startSession(reply, deps, consumed.user.id);
    request.log.info(
      { userId: consumed.user.id, purpose: consumed.purpose },
      'portal sign-in with one-time link',
    );
    return seeOther(reply, `/portal/checks?notice=${passwordHash ? 'password-set' : 'signed-in'}`);
  });

  portal.post('/logout', async (request, reply) => {
    const names = cookieNames(deps.secureCookies);
    const value = request.cookies[names.session];
    if (value) await endSession(deps.db, deps.tokenKey, value);
    reply.clearCookie(names.session, cookieOptions(deps.secureCookies));
    return seeOther(reply, '/portal/login?notice=signed-out');
  });
};

/** Invitations and resets always set a password; a first-sign-in link only when none is set yet. */
function needsPassword(purpose: TokenPurpose, hasPassword: boolean): boolean {
  return purpose !== 'first-login' || !hasPassword;
}
