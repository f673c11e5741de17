/**
 * The page an invitation link opens (`/portal/invitations/<token>`) and its two forms: a new account (choose
 * a password) or an existing account (its password), either of which joins the organization and signs in.
 * Anyone with the link may open it; nothing on it, and no answer before a correct password, depends on
 * whether the address has an account (src/tenancy/invitations.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import {
  type Acceptance,
  acceptAsNewAccount,
  acceptWithAccount,
  type LiveInvitation,
  peekInvitation,
} from '../../tenancy/invitations.ts';
import { type PortalDeps, seeOther, sendPage } from '../context.ts';
import { formBody, formValue } from '../forms.ts';
import { LoginThrottle } from '../login-throttle.ts';
import { hashPassword, newPasswordProblem, verifyPassword } from '../passwords.ts';
import { attemptSignIn } from '../sign-in-attempt.ts';
import { type InvitationForm, invitationGonePage, invitationPage } from '../views/invitation.ts';
import { tooManyAttemptsPage } from '../views/sign-in.ts';
import { formToken, startSession } from './sign-in.ts';

const anonymous = { config: { access: 'anonymous' as const } };
const TokenParams = Type.Object({ token: Type.String() });
const path = (token: string) => `/portal/invitations/${token}`;

export const invitationRoutes: FastifyPluginAsyncTypebox<PortalDeps> = async (portal, deps) => {
  const signInDeps = {
    db: deps.db,
    throttle: new LoginThrottle(deps.db, deps.signInThrottleKey, deps.now),
    verifyPassword: deps.verifyPassword ?? verifyPassword,
  };
  const showPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    token: string,
    invitation: LiveInvitation,
    error?: { form: InvitationForm; message: string },
    status = 200,
  ) =>
    sendPage(
      reply,
      invitationPage({ path: path(token), token: formToken(deps, request, reply), invitation, error }),
      status,
    );

  /** The answer to an acceptance: signed in to the organization, or the page again saying why not. */
  const answer = async (
    request: FastifyRequest,
    reply: FastifyReply,
    token: string,
    invitation: LiveInvitation,
    outcome: Acceptance,
  ) => {
    if (outcome.kind === 'gone') return sendPage(reply, invitationGonePage(), 410);
    if (outcome.kind === 'account-exists') {
      request.log.info(
        { invitationId: invitation.id },
        'portal invitation: new password for an existing account',
      );
      const message = 'This email already has a portal account: enter its password below to join.';
      return showPage(request, reply, token, invitation, { form: 'new', message }, 400);
    }
    if (outcome.kind === 'last-owner') {
      const message =
        'You are the only owner of the organization your account is in now. Make someone else an owner there first, then use this link again.';
      return showPage(request, reply, token, invitation, { form: 'existing', message }, 400);
    }
    await startSession(reply, deps, outcome.user.id);
    request.log.info(
      { userId: outcome.user.id, organizationId: outcome.user.organizationId, invitationId: invitation.id },
      'portal invitation accepted',
    );
    return seeOther(reply, '/portal/checks?notice=joined');
  };

  portal.get(
    '/invitations/:token',
    { ...anonymous, schema: { params: TokenParams } },
    async (request, reply) => {
      const { token } = request.params;
      const invitation = await peekInvitation(deps.db, deps.tokenKey, token);
      if (!invitation) return sendPage(reply, invitationGonePage(), 410);
      return showPage(request, reply, token, invitation);
    },
  );

  portal.post(
    '/invitations/:token',
    { ...anonymous, schema: { params: TokenParams } },
    async (request, reply) => {
      const { token } = request.params;
      const invitation = await peekInvitation(deps.db, deps.tokenKey, token);
      if (!invitation) return sendPage(reply, invitationGonePage(), 410);
      const form = formBody(request);
      const password = formValue(form, 'password');
      const problem = newPasswordProblem(password, formValue(form, 'confirm'), invitation.email);
      if (problem) return showPage(request, reply, token, invitation, { form: 'new', message: problem }, 400);
      const passwordHash = await hashPassword(password);
      const outcome = await acceptAsNewAccount(deps.db, deps.tokenKey, token, passwordHash);
      return answer(request, reply, token, invitation, outcome);
    },
  );

  portal.post(
    '/invitations/:token/existing',
    { ...anonymous, schema: { params: TokenParams } },
    async (request, reply) => {
      const { token } = request.params;
      const invitation = await peekInvitation(deps.db, deps.tokenKey, token);
      if (!invitation) return sendPage(reply, invitationGonePage(), 410);
      // The sign-in of the address the invitation names, throttled as the sign-in page is: an address
      // without an account is refused exactly like a wrong password, after the same time.
      const attempt = await attemptSignIn(signInDeps, {
        email: invitation.email,
        validEmail: true,
        password: formValue(formBody(request), 'account-password'),
        address: request.ip,
      });
      if (attempt.kind === 'throttled') {
        const wait = attempt.retryAfterSeconds;
        return sendPage(reply.header('retry-after', String(wait)), tooManyAttemptsPage(wait), 429);
      }
      if (attempt.kind === 'refused') {
        const message = 'The password is incorrect.';
        return showPage(request, reply, token, invitation, { form: 'existing', message }, 401);
      }
      const outcome = await acceptWithAccount(deps.db, deps.tokenKey, token, attempt.user);
      return answer(request, reply, token, invitation, outcome);
    },
  );
};
