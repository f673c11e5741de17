/**
 * Settings > Team as an owner reads it: the people and the open invitations with their actions, the
 * invitation form, a one-time link to pass on (an invitation, or a new sign-in link), and the confirmation
 * before someone is removed.
 */
import type { Invitation } from '../../tenancy/invitations.ts';
import type { PortalSession } from '../../tenancy/sessions.ts';
import type { listUsers, Role } from '../../tenancy/users.ts';
import { timestamp } from '../format.ts';
import { html, type SafeHtml } from '../html.ts';
import { copyable, csrfField, errorSummary, page, settingsPage, textField } from '../layout.ts';

export const TEAM = '/portal/settings/team';

/** The organization's people, as `listUsers` reads them. */
type Users = Awaited<ReturnType<typeof listUsers>>;

/** What the team page lists: the people, then the invitations not used yet. */
export interface Team {
  users: Users;
  invitations: Invitation[];
}

/** Change role, new sign-in link, remove: one small form each, so every action works without script. */
function memberActions(s: PortalSession, u: Users[number]): SafeHtml {
  const other: Role = u.role === 'owner' ? 'member' : 'owner';
  return html`<div class="row-actions">
<form method="post" action="${TEAM}/${u.id}/role" class="inline">${csrfField(s.csrfToken)}<input type="hidden" name="role" value="${other}"><button type="submit" class="secondary">Make ${other}<span class="sr-only"> ${u.email}</span></button></form>
<form method="post" action="${TEAM}/${u.id}/link" class="inline">${csrfField(s.csrfToken)}<button type="submit" class="secondary">New sign-in link<span class="sr-only"> for ${u.email}</span></button></form>
<a href="${TEAM}/${u.id}/remove">Remove<span class="sr-only"> ${u.email}</span></a>
</div>`;
}

/** An invitation's row: who and as what, whether its link still works, a new link or withdrawing it. */
function invitationRow(s: PortalSession, i: Invitation): SafeHtml {
  const base = `${TEAM}/invitations/${i.id}`;
  return html`<tr><th scope="row">${i.email}</th><td>${i.role === 'owner' ? 'Owner' : 'Member'}</td><td>${
    i.expired ? 'Invitation expired' : html`Invited (link valid until ${timestamp(i.expiresAt)})`
  }</td><td>${timestamp(i.createdAt)}</td><td><div class="row-actions">
<form method="post" action="${base}/link" class="inline">${csrfField(s.csrfToken)}<button type="submit" class="secondary">New invitation link<span class="sr-only"> for ${i.email}</span></button></form>
<form method="post" action="${base}/withdraw" class="inline">${csrfField(s.csrfToken)}<button type="submit" class="secondary">Withdraw<span class="sr-only"> the invitation of ${i.email}</span></button></form>
</div></td></tr>`;
}

/** A one-time link the owner passes on, with a warning when its address is this process's guess. */
function linkPanel(
  p: { id: string; copyId: string; heading: string; validity: string },
  link: { url: string; guessed: boolean },
): SafeHtml {
  return html`<section class="panel success" aria-labelledby="${p.id}"><h2 id="${p.id}">${p.heading}</h2>
<p>Send this link to them yourself. ${p.validity}</p>
${copyable(p.copyId, link.url, 'Sign-in link')}${
  link.guessed
    ? html`<p class="notice warning" role="note">This link assumes the portal is at ${new URL(link.url).origin}, the address of this server process. If people reach the portal at another address, correct the link before sending it, and ask your operator to set <code>PUBLIC_URL</code>.</p>`
    : ''
}</section>`;
}

/** The people, the invitation form, and the link just made (an invitation or a new sign-in link). */
export function teamPage(
  s: PortalSession,
  team: Team,
  o: {
    email?: string;
    role?: Role;
    error?: string;
    invited?: { email: string; url: string; guessed: boolean };
    linked?: { email: string; url: string; guessed: boolean; validDays: number };
    notice?: string;
    actionError?: string;
  },
): SafeHtml {
  return settingsPage(
    s,
    'team',
    o.notice,
    html`${o.actionError ? html`<div class="error-summary" role="alert" tabindex="-1"><h2>That did not work</h2><p>${o.actionError}</p></div>` : ''}
${
  o.linked
    ? linkPanel(
        {
          id: 'linked',
          copyId: 'relink-link',
          heading: `New sign-in link for ${o.linked.email}`,
          validity: `It works once, within ${o.linked.validDays} day${o.linked.validDays === 1 ? '' : 's'}; there they choose a new password. Their older links no longer work.`,
        },
        o.linked,
      )
    : ''
}
${
  o.invited
    ? linkPanel(
        {
          id: 'invited',
          copyId: 'invite-link',
          heading: `Invitation for ${o.invited.email}`,
          validity:
            'It works once, within 7 days; there they choose a password, or enter the password of the account they already have.',
        },
        o.invited,
      )
    : ''
}
<section aria-labelledby="people"><h2 id="people">People</h2>
<div class="table-wrap" role="region" aria-label="People" tabindex="0"><table>
<thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col">Added</th><th scope="col">Actions</th></tr></thead>
<tbody>${team.users.map(
      (u) =>
        html`<tr><th scope="row">${u.email}</th><td>${u.role === 'owner' ? 'Owner' : 'Member'}</td><td>${
          u.hasPassword ? 'Signed up' : 'No password yet'
        }</td><td>${timestamp(u.createdAt)}</td><td>${u.id === s.user.id ? html`<span class="muted">You</span>` : memberActions(s, u)}</td></tr>`,
    )}${team.invitations.map((i) => invitationRow(s, i))}</tbody></table></div></section>
<section aria-labelledby="invite"><h2 id="invite">Invite someone</h2>
<p>Members see checks and can run checks. Owners also manage API keys, webhooks and the team.</p>
${errorSummary(o.error ? [{ field: 'email', message: o.error }] : [])}
<form method="post" action="/portal/settings/team/invite" novalidate>
  ${csrfField(s.csrfToken)}
  ${textField({ name: 'email', label: 'Email', type: 'email', value: o.email, required: true, autocomplete: 'off', error: o.error })}
  <fieldset><legend>Role</legend>
  <div class="check"><input type="radio" id="role-member" name="role" value="member"${o.role !== 'owner' ? html` checked` : ''}><label for="role-member">Member</label></div>
  <div class="check"><input type="radio" id="role-owner" name="role" value="owner"${o.role === 'owner' ? html` checked` : ''}><label for="role-owner">Owner</label></div>
  </fieldset>
  <button type="submit">Create invitation link</button>
</form></section>`,
  );
}

/** The confirmation step before someone is removed from the team. */
export function removeMemberPage(s: PortalSession, user: Pick<Users[number], 'id' | 'email'>): SafeHtml {
  return page({
    title: 'Remove from team',
    session: s,
    current: 'team',
    body: html`<h1>Remove ${user.email}?</h1>
<p>They are signed out at once, and their sign-in links stop working. Checks they ran stay with the
organization. To let them back in later, invite them again.</p>
<form method="post" action="${TEAM}/${user.id}/remove" class="actions">
  ${csrfField(s.csrfToken)}
  <button type="submit" class="danger">Remove ${user.email}</button>
  <a href="${TEAM}">Cancel</a>
</form>`,
  });
}
