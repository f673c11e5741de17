/**
 * The page an invitation link opens, and the one for a link that no longer works. The page is the same for
 * every address, with or without an account anywhere (the owner who made the link can open it too): it
 * offers both ways in, a new password or an existing account's password.
 */
import type { LiveInvitation } from '../../tenancy/invitations.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, errorSummary, messagePage, page, textField } from '../layout.ts';
import { PASSWORD_MIN } from '../passwords.ts';

/** Which of the page's two forms a problem belongs to. */
export type InvitationForm = 'new' | 'existing';

export function invitationPage(o: {
  path: string;
  token: string;
  invitation: LiveInvitation;
  error?: { form: InvitationForm; message: string };
}): SafeHtml {
  const { invitation: inv } = o;
  const errorOf = (form: InvitationForm) => (o.error?.form === form ? o.error.message : undefined);
  const field = o.error?.form === 'existing' ? 'account-password' : 'password';
  return page({
    title: `Join ${inv.organizationName}`,
    body: html`<div class="narrow">
<h1>Join ${inv.organizationName}</h1>
<p><strong>${inv.email}</strong> is invited to ${inv.organizationName} as ${inv.role === 'owner' ? 'an owner' : 'a member'}. The link works once.</p>
${errorSummary(o.error ? [{ field, message: o.error.message }] : [])}
<section aria-labelledby="new-account"><h2 id="new-account">New to the portal: choose a password</h2>
<form method="post" action="${o.path}" novalidate>
  ${csrfField(o.token)}
  <input type="hidden" name="username" value="${inv.email}" autocomplete="username">
  ${textField({ name: 'password', label: 'New password', type: 'password', required: true, autocomplete: 'new-password', hint: `At least ${PASSWORD_MIN} characters. A passphrase of a few words is easiest to remember.`, error: errorOf('new') })}
  ${textField({ name: 'confirm', label: 'New password again', type: 'password', required: true, autocomplete: 'new-password' })}
  <button type="submit">Set password and join</button>
</form></section>
<section aria-labelledby="existing-account"><h2 id="existing-account">Already have a portal account with this email?</h2>
<p>Enter its password. An account belongs to one organization: joining ${inv.organizationName} moves your account
here, and you leave the organization it is in now.</p>
<form method="post" action="${o.path}/existing" novalidate>
  ${csrfField(o.token)}
  <input type="hidden" name="username" value="${inv.email}" autocomplete="username">
  ${textField({ name: 'account-password', label: 'Password', type: 'password', required: true, autocomplete: 'current-password', error: errorOf('existing') })}
  <button type="submit" class="secondary">Sign in and join</button>
</form></section>
</div>`,
  });
}

export function invitationGonePage(): SafeHtml {
  return messagePage({
    title: 'This invitation no longer works',
    message:
      'Invitation links work once and expire after 7 days, and an owner can withdraw one. Ask the person who invited you for a new link. If you already joined, sign in.',
    action: { href: '/portal/login', label: 'Go to sign in' },
  });
}
