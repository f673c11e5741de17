/**
 * Settings > Webhooks: save or remove the URL (refusals explained), generate / type in / reveal / roll /
 * remove the signing secret, send a test event and wait briefly for its answer, read and resend deliveries.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { UUID_PATTERN } from '../../ids.ts';
import { findEvent } from '../../store/webhook-events.ts';
import {
  listWebhookAttempts,
  listWebhookEvents,
  queueTestEvent,
  resendWebhookEvent,
  type WebhookAttempt,
} from '../../webhooks/deliveries.ts';
import {
  getWebhookSettings,
  rollWebhookSecret,
  setWebhookEventTypes,
  setWebhookSecret,
  setWebhookUrl,
} from '../../webhooks/settings.ts';
import { ownerOnly, ownerOnlyById } from '../access.ts';
import { notFound, noticeOf, type PortalDeps, seeOther, sendPage, session } from '../context.ts';
import { formBody, formValue, formValues, queryValue } from '../forms.ts';
import {
  type EventDetail,
  eventPage,
  WEBHOOKS,
  type WebhookPageState,
  webhooksPage,
} from '../views/webhooks.ts';

/** How long the test button waits for the dispatcher's first attempt before showing a page that reloads. */
const TEST_WAIT_MS = 5000;

export const webhookRoutes: FastifyPluginAsyncTypebox<PortalDeps> = async (portal, deps) => {
  const show = async (request: FastifyRequest, reply: FastifyReply, st: WebhookPageState, status = 200) => {
    const s = session(request);
    const org = s.user.organizationId;
    const settings = await getWebhookSettings(deps.db, deps.box, org);
    if (!settings) return notFound(request, reply);
    const before = st.before && UUID_PATTERN.test(st.before) ? st.before : undefined;
    const page = await listWebhookEvents(deps.db, org, { limit: 26, before });
    const next = page.length > 25 ? page[24]!.id : undefined;
    return sendPage(reply, webhooksPage(s, settings, page.slice(0, 25), next, { ...st, before }), status);
  };

  portal.get('/settings/webhooks', ownerOnly, (request, reply) =>
    show(request, reply, {
      notice: noticeOf(request),
      before: queryValue(request, 'before'),
    }),
  );

  portal.post('/settings/webhooks/url', ownerOnly, async (request, reply) => {
    const s = session(request);
    const url = formValue(formBody(request), 'url').trim();
    const result = await setWebhookUrl(deps.db, s.user.organizationId, url || null, {
      allowPrivate: deps.allowPrivateWebhooks,
    });
    if (!result.ok) return show(request, reply, { urlInput: url, urlError: result.reason }, 400);
    request.log.info({ userId: s.user.id }, 'webhook URL changed in the portal');
    return seeOther(reply, `${WEBHOOKS}?notice=${url ? 'url-saved' : 'url-cleared'}`);
  });

  portal.post('/settings/webhooks/events', ownerOnly, async (request, reply) => {
    const s = session(request);
    const chosen = formValues(formBody(request), 'types');
    const result = await setWebhookEventTypes(deps.db, s.user.organizationId, chosen);
    if (!result.ok) return show(request, reply, { notice: result.reason }, 400);
    request.log.info(
      { userId: s.user.id, eventTypes: result.value },
      'webhook event types changed in the portal',
    );
    return seeOther(reply, `${WEBHOOKS}?notice=events-saved`);
  });

  portal.post('/settings/webhooks/secret', ownerOnly, async (request, reply) => {
    const s = session(request);
    const form = formBody(request);
    const action = formValue(form, 'action');
    const org = s.user.organizationId;
    if (action === 'remove') {
      await setWebhookSecret(deps.db, deps.box, org, null);
      return seeOther(reply, `${WEBHOOKS}?notice=secret-removed`);
    }
    const input = action === 'generate' ? ({ generate: true } as const) : formValue(form, 'secret');
    if (input === '') return show(request, reply, { secretError: 'Type a secret, or generate one.' }, 400);
    const result = await setWebhookSecret(deps.db, deps.box, org, input);
    if (!result.ok) return show(request, reply, { secretError: result.reason }, 400);
    request.log.info({ userId: s.user.id }, 'webhook signing secret set in the portal');
    return show(request, reply, {
      reveal: true,
      notice: 'Signing secret saved. Copy it into your receiver: deliveries are signed with it from now on.',
    });
  });

  portal.post('/settings/webhooks/secret/reveal', ownerOnly, (request, reply) =>
    show(request, reply, { reveal: true }),
  );

  portal.post('/settings/webhooks/secret/roll', ownerOnly, async (request, reply) => {
    const s = session(request);
    const result = await rollWebhookSecret(deps.db, deps.box, s.user.organizationId);
    if (!result.ok) return show(request, reply, { secretError: result.reason }, 400);
    request.log.info({ userId: s.user.id }, 'webhook signing secret rolled in the portal');
    return show(request, reply, {
      reveal: true,
      notice:
        'Secret rolled. Deliveries now carry X-Webhook-Signature (new secret) and, for 24 hours, X-Webhook-Signature-Previous (old secret).',
    });
  });

  portal.post('/settings/webhooks/test', ownerOnly, async (request, reply) => {
    const s = session(request);
    const org = s.user.organizationId;
    const queued = await queueTestEvent(deps.db, org);
    if ('error' in queued) return show(request, reply, { testError: queued.error }, 400);
    // The dispatcher usually answers within a second; wait a little so the person sees the result at once.
    let attempts: WebhookAttempt[] = [];
    for (const deadline = Date.now() + TEST_WAIT_MS; Date.now() < deadline; ) {
      attempts = (await listWebhookAttempts(deps.db, org, queued.eventId)) ?? [];
      if (attempts.length) break;
      await new Promise((r) => setTimeout(r, 150));
    }
    const notice = attempts.length ? 'test-sent' : 'test-pending';
    return seeOther(reply, `${WEBHOOKS}/deliveries/${queued.eventId}?notice=${notice}`);
  });

  portal.get('/settings/webhooks/deliveries/:id', ownerOnlyById, async (request, reply) => {
    const s = session(request);
    const id = request.params.id;
    const event = await getEvent(deps, s.user.organizationId, id);
    const attempts = event && (await listWebhookAttempts(deps.db, s.user.organizationId, id));
    if (!event || !attempts) return notFound(request, reply);
    return sendPage(reply, eventPage(s, event, attempts, noticeOf(request)));
  });

  portal.post('/settings/webhooks/deliveries/:id/resend', ownerOnlyById, async (request, reply) => {
    const s = session(request);
    const id = request.params.id;
    if (!(await resendWebhookEvent(deps.db, s.user.organizationId, id))) return notFound(request, reply);
    request.log.info({ userId: s.user.id, eventId: id }, 'webhook delivery resent from the portal');
    return seeOther(reply, `${WEBHOOKS}/deliveries/${id}?notice=resent`);
  });
};

/** One event of this organization (the delivery log's header); undefined for anyone else's. */
async function getEvent(
  deps: PortalDeps,
  organizationId: string,
  id: string,
): Promise<EventDetail | undefined> {
  if (!UUID_PATTERN.test(id)) return undefined;
  const r = await findEvent(deps.db, organizationId, id);
  return (
    r && {
      id: r.id,
      kind: r.kind,
      checkId: r.checkId,
      state: r.state,
      url: r.url,
      createdAt: r.createdAt.toISOString(),
      deliveredAt: r.deliveredAt?.toISOString() ?? null,
    }
  );
}
