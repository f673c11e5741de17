/**
 * Settings > Team (owners): who can sign in, and invitations: a stored invitation with a one-time link (7
 * days) that the owner passes on; the invitee joins there (src/portal/routes/invitations.ts). Owners give
 * an invitation a new link or withdraw it. Owners also change others' roles, remove people
 * (with a confirmation step) and give someone a new sign-in link, which is what the sign-in page tells a
 * locked-out user to ask an owner for (rules in src/tenancy/team.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  inviteToTeam,
  listInvitations,
  renewInvitationLink,
  withdrawInvitation,
} from '../../tenancy/invitations.ts';
import type { PortalSession } from '../../tenancy/sessions.ts';
import { changeRole, relinkUser, removeUser } from '../../tenancy/team.ts';
import { listUsers, PortalUserError, type Role } from '../../tenancy/users.ts';
import { ownerOnly, ownerOnlyById } from '../access.ts';
import { notFound, noticeOf, type PortalDeps, portalLink, seeOther, sendPage, session } from '../context.ts';
import { formBody, formValue } from '../forms.ts';
import { removeMemberPage, TEAM, type Team, teamPage } from '../views/team.ts';

export const teamRoutes: FastifyPluginAsyncTypebox<PortalDeps> = async (portal, deps) => {
  /** The organization's people and its open invitations, as the team page lists them. */
  const team = async (s: PortalSession): Promise<Team> => ({
    users: await listUsers(deps.db, s.user.organizationId),
    invitations: await listInvitations(deps.db, s.user.organizationId),
  });

  portal.get('/settings/team', ownerOnly, async (request, reply) => {
    const s = session(request);
    return sendPage(reply, teamPage(s, await team(s), { notice: noticeOf(request) }));
  });

  /** A refused team action: the team page again, saying why (the rule's own words). */
  const refused = async (reply: FastifyReply, s: PortalSession, err: unknown) => {
    if (!(err instanceof PortalUserError)) throw err;
    const message = `${err.message.charAt(0).toUpperCase()}${err.message.slice(1)}.`;
    return sendPage(reply, teamPage(s, await team(s), { actionError: message }), 400);
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
    const link = {
      email: linked.user.email,
      validDays: linked.validDays,
      ...portalLink(deps, linked.loginPath),
    };
    return sendPage(reply, teamPage(s, await team(s), { linked: link }));
  });

  portal.get('/settings/team/:id/remove', ownerOnlyById, async (request, reply) => {
    const s = session(request);
    const user = (await listUsers(deps.db, s.user.organizationId)).find((u) => u.id === request.params.id);
    if (!user || user.id === s.user.id) return notFound(request, reply);
    return sendPage(reply, removeMemberPage(s, user));
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
      // The same answer whether or not the address has an account in another organization: an invitation
      // is stored either way, and whoever holds the link decides how to use it (src/tenancy/invitations.ts).
      const invited = await inviteToTeam(deps.db, deps.tokenKey, {
        organizationId: s.user.organizationId,
        email,
        role,
      });
      request.log.info(
        { userId: s.user.id, organizationId: s.user.organizationId },
        'portal invitation made',
      );
      const link = { email: invited.email, ...portalLink(deps, invited.invitationPath) };
      return sendPage(reply, teamPage(s, await team(s), { invited: link }), 201);
    } catch (err) {
      if (!(err instanceof PortalUserError)) throw err;
      return sendPage(reply, teamPage(s, await team(s), { email, role, error: err.message }), 400);
    }
  });

  portal.post('/settings/team/invitations/:id/link', ownerOnlyById, async (request, reply) => {
    const s = session(request);
    const renewed = await renewInvitationLink(deps.db, deps.tokenKey, {
      organizationId: s.user.organizationId,
      id: request.params.id,
    });
    if (!renewed) return notFound(request, reply);
    request.log.info(
      { userId: s.user.id, invitationId: request.params.id },
      'portal invitation given a new link',
    );
    const link = { email: renewed.email, ...portalLink(deps, renewed.invitationPath) };
    return sendPage(reply, teamPage(s, await team(s), { invited: link }));
  });

  portal.post('/settings/team/invitations/:id/withdraw', ownerOnlyById, async (request, reply) => {
    const s = session(request);
    const a = { organizationId: s.user.organizationId, id: request.params.id };
    if (!(await withdrawInvitation(deps.db, a))) return notFound(request, reply);
    request.log.info({ userId: s.user.id, invitationId: a.id }, 'portal invitation withdrawn');
    return seeOther(reply, `${TEAM}?notice=invitation-withdrawn`);
  });
};
