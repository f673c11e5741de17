/**
 * Settings > Team (owners): who can sign in, and invitations: a new user with a one-time link (7 days) that
 * the owner passes on; the invitee sets a password there. Owners also change others' roles, remove people
 * (with a confirmation step) and give someone a new sign-in link, which is what the sign-in page tells a
 * locked-out user to ask an owner for (rules in src/tenancy/team.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PortalSession } from '../../tenancy/sessions.ts';
import { changeRole, relinkUser, removeUser } from '../../tenancy/team.ts';
import {
  createPortalUser,
  INVITE_LINK_TTL_MS,
  issueLoginToken,
  listUsers,
  PortalUserError,
  type Role,
} from '../../tenancy/users.ts';
import { ownerOnly, ownerOnlyById } from '../access.ts';
import { notFound, noticeOf, type PortalDeps, portalLink, seeOther, sendPage, session } from '../context.ts';
import { timestamp } from '../format.ts';
import { formBody, formValue } from '../forms.ts';
import { html, type SafeHtml } from '../html.ts';
import { copyable, csrfField, errorSummary, page, settingsPage, textField } from '../layout.ts';

const TEAM = '/portal/settings/team';

type Users = Awaited<ReturnType<typeof listUsers>>;

/** Change role, new sign-in link, remove: one small form each, so every action works without script. */
function memberActions(s: PortalSession, u: Users[number]): SafeHtml {
  const other: Role = u.role === 'owner' ? 'member' : 'owner';
  return html`<div class="row-actions">
<form method="post" action="${TEAM}/${u.id}/role" class="inline">${csrfField(s.csrfToken)}<input type="hidden" name="role" value="${other}"><button type="submit" class="secondary">Make ${other}<span class="sr-only"> ${u.email}</span></button></form>
<form method="post" action="${TEAM}/${u.id}/link" class="inline">${csrfField(s.csrfToken)}<button type="submit" class="secondary">New sign-in link<span class="sr-only"> for ${u.email}</span></button></form>
<a href="${TEAM}/${u.id}/remove">Remove<span class="sr-only"> ${u.email}</span></a>
</div>`;
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

function teamPage(
  s: PortalSession,
  users: Users,
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
          validity: 'It works once, within 7 days; there they choose a password.',
        },
        o.invited,
      )
    : ''
}
<section aria-labelledby="people"><h2 id="people">People</h2>
<div class="table-wrap" role="region" aria-label="People" tabindex="0"><table>
<thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Password set</th><th scope="col">Added</th><th scope="col">Actions</th></tr></thead>
<tbody>${users.map(
      (u) =>
        html`<tr><th scope="row">${u.email}</th><td>${u.role === 'owner' ? 'Owner' : 'Member'}</td><td>${
          u.hasPassword ? 'Yes' : 'Not yet'
        }</td><td>${timestamp(u.createdAt)}</td><td>${u.id === s.user.id ? html`<span class="muted">You</span>` : memberActions(s, u)}</td></tr>`,
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
  );
}

export const teamRoutes: FastifyPluginAsyncTypebox<PortalDeps> = async (portal, deps) => {
  portal.get('/settings/team', ownerOnly, async (request, reply) => {
    const s = session(request);
    const notice = noticeOf(request);
    return sendPage(reply, teamPage(s, await listUsers(deps.db, s.user.organizationId), { notice }));
  });

  /** A refused team action: the team page again, saying why (the rule's own words). */
  const refused = async (reply: FastifyReply, s: PortalSession, err: unknown) => {
    if (!(err instanceof PortalUserError)) throw err;
    const users = await listUsers(deps.db, s.user.organizationId);
    const message = `${err.message.charAt(0).toUpperCase()}${err.message.slice(1)}.`;
    return sendPage(reply, teamPage(s, users, { actionError: message }), 400);
  };
  const action = (s: PortalSession, userId: string) => ({
    organizationId: s.user.organizationId,
    actorId: s.user.id,
    userId,
  });
  /** An owner's POST on one member (`/settings/team/:id/<verb>`); a refusal shows the team page again. */
  const memberAction = (
    verb: string,
    run: (request: FastifyRequest, reply: FastifyReply, s: PortalSession, userId: string) => Promise<unknown>,
  ) =>
    portal.post(`/settings/team/:id/${verb}`, ownerOnlyById, async (request, reply) => {
      const s = session(request);
      try {
        return await run(request, reply, s, request.params.id);
      } catch (err) {
        return refused(reply, s, err);
      }
    });

  memberAction('role', async (request, reply, s, userId) => {
    const role: Role = formValue(formBody(request), 'role') === 'owner' ? 'owner' : 'member';
    const user = await changeRole(deps.db, { ...action(s, userId), role });
    request.log.info({ userId: s.user.id, changedUserId: user.id, role }, 'portal user role changed');
    return seeOther(reply, `${TEAM}?notice=role-changed`);
  });

  memberAction('link', async (request, reply, s, userId) => {
    const linked = await relinkUser(deps.db, deps.tokenKey, action(s, userId));
    request.log.info({ userId: s.user.id, linkedUserId: linked.user.id }, 'portal user given a new link');
    const users = await listUsers(deps.db, s.user.organizationId);
    const link = {
      email: linked.user.email,
      validDays: linked.validDays,
      ...portalLink(deps, linked.loginPath),
    };
    return sendPage(reply, teamPage(s, users, { linked: link }));
  });

  portal.get('/settings/team/:id/remove', ownerOnlyById, async (request, reply) => {
    const s = session(request);
    const user = (await listUsers(deps.db, s.user.organizationId)).find((u) => u.id === request.params.id);
    if (!user || user.id === s.user.id) return notFound(request, reply);
    return sendPage(
      reply,
      page({
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
      }),
    );
  });

  memberAction('remove', async (request, reply, s, userId) => {
    const user = await removeUser(deps.db, action(s, userId));
    request.log.info({ userId: s.user.id, removedUserId: user.id }, 'portal user removed');
    return seeOther(reply, `${TEAM}?notice=user-removed`);
  });

  portal.post('/settings/team/invite', ownerOnly, async (request, reply) => {
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
