/**
 * Settings > Webhooks: URL refusals explained, signing secret (generate, type in, reveal, roll with the
 * previous-signature header, remove), test event received and verified on a real receiver, delivery log
 * and resend.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, test } from 'node:test';
import { Receiver } from '../helpers/receiver.ts';
import {
  csrfToken,
  type PortalClient,
  type PortalHarness,
  signIn,
  signInWithLink,
  startPortal,
} from './helpers.ts';

const HOOKS = '/portal/settings/webhooks';
let h: PortalHarness;
let owner: PortalClient;
const receiver = new Receiver();

before(async () => {
  h = await startPortal();
  owner = await signInWithLink(h.url, h.loginPath);
  await receiver.start();
});
after(async () => {
  await receiver.stop();
  await h.stop();
});

const sign = (secret: string, timestamp: string, body: string) =>
  createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');

function revealedSecret(pageHtml: string): string | undefined {
  return /id="secret-value"[^>]*value="([^"]+)"/.exec(pageHtml)?.[1];
}

test('without the private allowance, refusals say why in words', async () => {
  const strict = await h.listenPortal({ allowPrivateWebhooks: false });
  try {
    const c = await signIn(strict.url, h.ownerEmail);
    const http = await c.submit(HOOKS, `${HOOKS}/url`, { url: 'http://hooks.example.com/x' });
    assert.equal(http.status, 400);
    assert.match(http.text, /must use https:\/\//);
    const metadata = await c.submit(HOOKS, `${HOOKS}/url`, { url: 'https://169.254.169.254/latest' });
    assert.equal(metadata.status, 400);
    assert.match(metadata.text, /points to 169\.254\.169\.254/);
    assert.match(
      metadata.text,
      /value="https:\/\/169\.254\.169\.254\/latest"/,
      'typed URL kept in the field',
    );
    const internal = await c.submit(HOOKS, `${HOOKS}/url`, { url: 'https://billing.internal/hook' });
    assert.match(internal.text, /internal/);
    const { rows } = await h.service.store.db.query('SELECT webhook_url FROM organizations WHERE id = $1', [
      h.organizationId,
    ]);
    assert.equal(rows[0]!.webhook_url, null);
  } finally {
    await strict.close();
  }
});

test('a test event needs a URL first', async () => {
  const page = await owner.get(HOOKS);
  assert.match(page.text, /Send test event<\/button> <span id="no-url"|disabled aria-describedby="no-url"/);
  const res = await owner.post(`${HOOKS}/test`, { _csrf: csrfToken(page.text) });
  assert.equal(res.status, 400);
  assert.match(res.text, /Set a webhook URL first/);
});

test('save the URL, generate a secret, and receive a signed test event', async () => {
  const saved = await owner.submit(HOOKS, `${HOOKS}/url`, { url: receiver.url });
  assert.equal(saved.status, 303);
  const generated = await owner.submit(HOOKS, `${HOOKS}/secret`, { action: 'generate' });
  assert.equal(generated.status, 200);
  const secret = revealedSecret(generated.text) ?? '';
  assert.ok(secret.startsWith('whsec_'), 'generated secret shown');

  // Hidden until revealed on request.
  const plain = await owner.get(HOOKS);
  assert.ok(!plain.text.includes(secret), 'secret not in the page by default');
  assert.match(plain.text, /Reveal secret/);
  const revealed = await owner.post(`${HOOKS}/secret/reveal`, { _csrf: csrfToken(plain.text) });
  assert.equal(revealedSecret(revealed.text), secret);

  const sent = await owner.submit(HOOKS, `${HOOKS}/test`, {});
  assert.equal(sent.status, 303);
  assert.match(
    sent.location ?? '',
    /^\/portal\/settings\/webhooks\/deliveries\/[0-9a-f-]{36}\?notice=test-sent$/,
  );
  const [delivery] = await receiver.waitFor(1);
  const ts = delivery!.headers['x-webhook-timestamp'] as string;
  assert.equal(delivery!.headers['x-webhook-signature'], sign(secret, ts, delivery!.body));
  assert.equal(JSON.parse(delivery!.body).warnings[0].code, 'TEST_EVENT');

  const detail = await owner.get(sent.location!);
  assert.match(detail.text, /Test event sent/);
  assert.match(detail.text, /HTTP 200/);
  assert.match(detail.text, /\d+ ms/);
  assert.doesNotMatch(detail.text, /http-equiv="refresh"/);
  const log = await owner.get(HOOKS);
  assert.match(log.text, /Test event/);
  assert.match(log.text, /badge-delivered/);
});

test('roll: new secret signs, the old one signs the previous header for 24 hours', async () => {
  const before = revealedSecret((await owner.submit(HOOKS, `${HOOKS}/secret/reveal`, {})).text)!;
  const rolled = await owner.submit(HOOKS, `${HOOKS}/secret/roll`, {});
  assert.equal(rolled.status, 200);
  assert.match(rolled.text, /24 hours/);
  assert.match(rolled.text, /X-Webhook-Signature-Previous/);
  const after = revealedSecret(rolled.text)!;
  assert.notEqual(after, before);
  assert.match(rolled.text, /previous secret still signs/);

  await owner.submit(HOOKS, `${HOOKS}/test`, {});
  const got = (await receiver.waitFor(2))[1]!;
  const ts = got.headers['x-webhook-timestamp'] as string;
  assert.equal(got.headers['x-webhook-signature'], sign(after, ts, got.body));
  assert.equal(got.headers['x-webhook-signature-previous'], sign(before, ts, got.body));
});

test('resend delivers the same event (same id, same bytes) again', async () => {
  const log = await owner.get(HOOKS);
  const eventId = /deliveries\/([0-9a-f-]{36})\/resend/.exec(log.text)![1]!;
  const count = receiver.received.length;
  const res = await owner.post(`${HOOKS}/deliveries/${eventId}/resend`, { _csrf: csrfToken(log.text) });
  assert.equal(res.status, 303);
  const all = await receiver.waitFor(count + 1);
  const again = all[all.length - 1]!;
  assert.equal(again.headers['x-webhook-id'], eventId);
  const original = all.find((r) => r.headers['x-webhook-id'] === eventId)!;
  assert.equal(again.body, original.body);
});

test('a typed-in secret is validated; removing the secret stops signing', async () => {
  const short = await owner.submit(HOOKS, `${HOOKS}/secret`, { action: 'set', secret: 'too short' });
  assert.equal(short.status, 400);
  assert.match(short.text, /at least 24 characters/);
  const mine = 'my-own-secret-of-enough-length-123';
  const set = await owner.submit(HOOKS, `${HOOKS}/secret`, { action: 'set', secret: mine });
  assert.equal(revealedSecret(set.text), mine);
  const removed = await owner.submit(HOOKS, `${HOOKS}/secret`, { action: 'remove' });
  assert.equal(removed.status, 303);
  assert.match((await owner.get(removed.location!)).text, /No signing secret/);
  const n = receiver.received.length;
  await owner.submit(HOOKS, `${HOOKS}/test`, {});
  const got = (await receiver.waitFor(n + 1))[n]!;
  assert.equal(got.headers['x-webhook-signature'], undefined);
});

test('removing the URL', async () => {
  const res = await owner.submit(HOOKS, `${HOOKS}/url`, { url: '' });
  assert.equal(res.status, 303);
  assert.match((await owner.get(res.location!)).text, /Webhook URL removed/);
});

test('the events checkboxes choose which event types the endpoint receives (default: all)', async () => {
  const before = await owner.get(HOOKS);
  for (const name of ['eligibility.completed', 'batch.completed', 'coverage.changed']) {
    assert.match(before.text, new RegExp(`name="types" value="${name.replace('.', '\\.')}" checked`));
  }
  const posted = await owner.submit(HOOKS, `${HOOKS}/events`, { types: ['batch.completed'] });
  assert.equal(posted.status, 303);
  const saved = await owner.get(`${HOOKS}?notice=events-saved`);
  assert.match(saved.text, /Event types saved/);
  assert.match(saved.text, /value="batch\.completed" checked/);
  assert.doesNotMatch(saved.text, /value="eligibility\.completed" checked/);
  const { rows } = await h.service.store.db.query<{ t: string[] | null }>(
    'SELECT webhook_event_types AS t FROM organizations WHERE id = $1',
    [h.organizationId],
  );
  assert.deepEqual(rows[0]?.t, ['batch.completed']);
  const unknown = await owner.submit(HOOKS, `${HOOKS}/events`, { types: ['nope'] });
  assert.equal(unknown.status, 400);
  assert.match(unknown.text, /Unknown event type: nope/);
  await owner.submit(HOOKS, `${HOOKS}/events`, {
    types: ['eligibility.completed', 'batch.completed', 'coverage.changed'],
  });
});
