/**
 * Settings > Team (owners): who can sign in, and invitations: a new user with a one-time link (7 days) that
 * the owner passes on; the invitee sets a password there.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { PortalSession } from '../../tenancy/sessions.ts';
import {
  createPortalUser,
  INVITE_LINK_TTL_MS,
  issueLoginToken,
  listUsers,
  PortalUserError,
  type Role,
} from '../../tenancy/users.ts';
import { formBody, formValue, type PortalDeps, portalLink, sendPage, session } from '../context.ts';
import { timestamp } from '../format.ts';
import { html, type SafeHtml } from '../html.ts';
import { copyable, csrfField, errorSummary, page, textField } from '../layout.ts';

const owner = { config: { access: 'owner' as const } };

type Users = Awaited<ReturnType<typeof listUsers>>;

function teamPage(
  s: PortalSession,
  users: Users,
  o: {
    email?: string;
    role?: Role;
    error?: string;
    invited?: { email: string; url: string; guessed: boolean };
  },
): SafeHtml {
  return page({
    title: 'Team',
    session: s,
    current: 'team',
    body: html`<h1>Team</h1>
${
  o.invited
    ? html`<section class="panel success" aria-labelledby="invited"><h2 id="invited">Invitation for ${o.invited.email}</h2>
<p>Send this link to them yourself. It works once, within 7 days; there they choose a password.</p>
${copyable('invite-link', o.invited.url, 'Sign-in link')}${
  o.invited.guessed
    ? html`<p class="notice warning" role="note">This link assumes the portal is at ${new URL(o.invited.url).origin}, the address of this server process. If people reach the portal at another address, correct the link before sending it, and ask your operator to set <code>PUBLIC_URL</code>.</p>`
    : ''
}</section>`
    : ''
}
<section aria-labelledby="people"><h2 id="people">People</h2>
<div class="table-wrap" role="region" aria-label="People" tabindex="0"><table>
<thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Password set</th><th scope="col">Added</th></tr></thead>
<tbody>${users.map(
      (u) =>
        html`<tr><th scope="row">${u.email}</th><td>${u.role === 'owner' ? 'Owner' : 'Member'}</td><td>${
          u.hasPassword ? 'Yes' : 'Not yet'
        }</td><td>${timestamp(u.createdAt)}</td></tr>`,
    )}</tbody></table></div></section>
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
  });
}

export const teamRoutes: FastifyPluginAsyncTypebox<PortalDeps> = async (portal, deps) => {
  portal.get('/settings/team', owner, async (request, reply) => {
    const s = session(request);
    return sendPage(reply, teamPage(s, await listUsers(deps.db, s.user.organizationId), {}));
  });

  portal.post('/settings/team/invite', owner, async (request, reply) => {
    const s = session(request);
    const form = formBody(request);
    const email = formValue(form, 'email').trim();
    const role: Role = formValue(form, 'role') === 'owner' ? 'owner' : 'member';
    try {
      const link = await deps.db.transaction(async (tx) => {
        const user = await createPortalUser(tx, { organizationId: s.user.organizationId, email, role });
        const token = await issueLoginToken(tx, deps.tokenKey, {
          userId: user.id,
          purpose: 'invite',
          ttlMs: INVITE_LINK_TTL_MS,
        });
        request.log.info({ userId: s.user.id, invitedUserId: user.id }, 'portal user invited');
        return { email: user.email, ...portalLink(deps, `/portal/login/${token}`) };
      });
      const users = await listUsers(deps.db, s.user.organizationId);
      return sendPage(reply, teamPage(s, users, { invited: link }), 201);
    } catch (err) {
      if (!(err instanceof PortalUserError)) throw err;
      const message =
        err.message === 'invalid email address'
          ? 'Enter a valid email address, like name@clinic.example.'
          : 'Someone with this email already has a portal account.';
      const users = await listUsers(deps.db, s.user.organizationId);
      return sendPage(reply, teamPage(s, users, { email, role, error: message }), 400);
    }
  });
};
