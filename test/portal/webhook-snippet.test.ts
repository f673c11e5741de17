/**
 * The delivery log shows the first 1 KB of the receiver's answer, HTML-escaped: a receiver's text is
 * never markup in our page, and a large answer is never stored whole. The snippet goes with the retention
 * purge, since a receiver may echo the body it was sent.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { purgeExpiredChecks } from '../../src/workers/retention.ts';
import { type PortalClient, type PortalHarness, signInWithLink, startPortal } from './helpers.ts';

const HOOKS = '/portal/settings/webhooks';
const ANSWER = `<script>alert("pwned")</script>${'x'.repeat(5000)}`;
let h: PortalHarness;
let owner: PortalClient;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'text/html' }).end(ANSWER));
});

before(async () => {
  h = await startPortal();
  owner = await signInWithLink(h.url, h.loginPath);
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
});
after(async () => {
  receiver.close();
  receiver.closeAllConnections();
  await h.stop();
});

test('the delivery log shows at most 1 KB of the answer, escaped', async () => {
  const { port } = receiver.address() as { port: number };
  assert.equal(
    (await owner.submit(HOOKS, `${HOOKS}/url`, { url: `http://127.0.0.1:${port}/hook` })).status,
    303,
  );
  const sent = await owner.submit(HOOKS, `${HOOKS}/test`, {});
  assert.equal(sent.status, 303);
  const deadline = Date.now() + 10_000;
  let page = (await owner.get(sent.location!)).text;
  while (!/HTTP 200/.test(page)) {
    assert.ok(Date.now() < deadline, 'no attempt recorded within 10 s');
    await new Promise((r) => setTimeout(r, 50));
    page = (await owner.get(sent.location!)).text;
  }
  const snippet = /<pre class="snippet">([^<]*)<\/pre>/.exec(page)?.[1];
  assert.ok(snippet, 'the snippet is shown');
  assert.ok(
    snippet.startsWith('&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;'),
    snippet.slice(0, 80),
  );
  assert.doesNotMatch(page, /<script>alert/);
  const text = snippet
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"');
  assert.equal(text, ANSWER.slice(0, 1024));
  const { rows } = await h.service.store.db.query<{ n: number }>(
    'SELECT max(length(response_snippet))::int AS n FROM webhook_attempts',
  );
  assert.equal(rows[0]!.n, 1024);
});

test('the retention purge removes snippets with the check they answered', async () => {
  const db = h.service.store.db;
  // A check delivered long ago, whose receiver answered with text.
  const { rows: orgs } = await db.query<{ id: string }>('SELECT id FROM organizations LIMIT 1');
  const checkId = '0193f3a2-b4c5-7d6e-8f8a-9b0c1d2e3f4a';
  const eventId = '0193f3a2-b4c5-7d6e-8f8a-9b0c1d2e3f4b';
  await db.query(
    `INSERT INTO checks (id, organization_id, status, trading_partner_service_id, request, result, completed_at)
     VALUES ($1, $2, 'COMPLETED', 'SANDBOX', '{}', '{}', now() - interval '400 days')`,
    [checkId, orgs[0]!.id],
  );
  await db.query(
    `INSERT INTO webhook_events (id, organization_id, check_id, body, url, state)
     VALUES ($1, $2, $3, '{}', 'https://hooks.example.test/x', 'delivered')`,
    [eventId, orgs[0]!.id, checkId],
  );
  await db.query(
    `INSERT INTO webhook_attempts (id, event_id, attempt_number, started_at, outcome, response_snippet)
     VALUES ($1, $2, 1, now(), 'delivered', 'echo of the body')`,
    ['0193f3a2-b4c5-7d6e-8f8a-9b0c1d2e3f4c', eventId],
  );
  assert.ok((await purgeExpiredChecks(db, 30)) >= 1);
  const { rows } = await db.query<{ response_snippet: string | null }>(
    'SELECT response_snippet FROM webhook_attempts WHERE event_id = $1',
    [eventId],
  );
  assert.equal(rows[0]!.response_snippet, null);
});
