/**
 * The signing-in pages: email and password, the page a one-time link opens (choose a password, or only a
 * button when the link needs none), a link that no longer works, and a throttled account.
 */
import type { TokenPurpose } from '../../tenancy/users.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, errorSummary, messagePage, page, textField } from '../layout.ts';
import { PASSWORD_MIN } from '../passwords.ts';

export function signInPage(o: {
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

export function setPasswordPage(o: {
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

export function linkInvalidPage(): SafeHtml {
  return messagePage({
    title: 'This link no longer works',
    message:
      'Sign-in links work once and expire. If you already set a password, sign in with it; otherwise ask an owner of your organization (or your operator) for a new link.',
    action: { href: '/portal/login', label: 'Go to sign in' },
  });
}

/** An account's sign-in throttle holds: how long to wait, and the way out that needs no password. */
export function tooManyAttemptsPage(waitSeconds: number): SafeHtml {
  return messagePage({
    title: 'Too many attempts',
    message: `Too many failed sign-ins for this account. Wait ${Math.ceil(waitSeconds / 60)} minute(s) and try again, or ask an owner for a new sign-in link.`,
    action: { href: '/portal/login', label: 'Back to sign in' },
  });
}
