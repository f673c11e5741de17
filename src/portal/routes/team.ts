/**
 * Settings > Team (owners): who can sign in, and invitations: a new user with a one-time link (7 days) that
 * the owner passes on; the invitee sets a password there. Owners also change others' roles, remove people
 * (with a confirmation step) and give someone a new sign-in link, which is what the sign-in page tells a
 * locked-out user to ask an owner for (rules in src/tenancy/team.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { prefixedId, randomBase62 } from '../../ids.ts';
import type { PortalSession } from '../../tenancy/sessions.ts';
import { changeRole, relinkUser, removeUser } from '../../tenancy/team.ts';
import {
  createPortalUser,
  findUserByEmail,
  INVITE_LINK_TTL_MS,
  issueLoginToken,
  listUsers,
  PortalUserError,
  type Role,
} from '../../tenancy/users.ts';
import { ownerOnly, ownerOnlyById } from '../access.ts';
import { notFound, noticeOf, type PortalDeps, portalLink, seeOther, sendPage, session } from '../context.ts';
import { formBody, formValue } from '../forms.ts';
import { removeMemberPage, TEAM, teamPage } from '../views/team.ts';

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
      const outcome = await deps.db.transaction(async (tx) => {
        const existing = await findUserByEmail(tx, email).catch(() => undefined);
        if (existing && existing.organizationId !== s.user.organizationId) {
          return { elsewhere: true as const, email: existing.email };
        }
        const user = await createPortalUser(tx, { organizationId: s.user.organizationId, email, role });
        const token = await issueLoginToken(tx, deps.tokenKey, {
          userId: user.id,
          purpose: 'invite',
          ttlMs: INVITE_LINK_TTL_MS,
        });
        request.log.info({ userId: s.user.id, invitedUserId: user.id }, 'portal user invited');
        return { elsewhere: false as const, email: user.email, token };
      });
      let users = await listUsers(deps.db, s.user.organizationId);
      let token: string;
      if (outcome.elsewhere) {
        // Someone in another organization already signs in with this email. Telling the owner so would let
        // any owner test addresses against every organization. The answer is the one a new email gets:
        // nothing is created, the link is a random token that was never stored (it opens the page of an
        // expired link), and the operator log (ids only) records the attempt for support to follow up.
        request.log.info(
          { userId: s.user.id, organizationId: s.user.organizationId },
          'portal invitation for an email with an account in another organization: nothing created',
        );
        token = randomBase62(40);
        const shown = { id: prefixedId('usr'), organizationId: s.user.organizationId, email: outcome.email };
        users = [...users, { ...shown, role, hasPassword: false, createdAt: new Date().toISOString() }];
      } else token = outcome.token;
      const link = { email: outcome.email, ...portalLink(deps, `/portal/login/${token}`) };
      return sendPage(reply, teamPage(s, users, { invited: link }), 201);
    } catch (err) {
      if (!(err instanceof PortalUserError)) throw err;
      // Only an address already in this organization is named: the team list shows it anyway.
      const message =
        err.message === 'invalid email address'
          ? 'Enter a valid email address, like name@clinic.example.'
          : 'Someone with this email is already on your team.';
      const users = await listUsers(deps.db, s.user.organizationId);
      return sendPage(reply, teamPage(s, users, { email, role, error: message }), 400);
    }
  });
};
