import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  closeWebhookAgents,
  describeConnectionError,
  guardLookup,
  RESPONSE_SNIPPET_BYTES,
  type ResolveAll,
  sendWebhook,
  webhookAgent,
} from '../../src/webhooks/send.ts';
import { buildWebhookHeaders } from '../../src/webhooks/sign.ts';
import { verifyWebhook } from '../../src/webhooks/verify.ts';

const SECRET_MARKER = 'RESPONSE-BODY-MARKER-7f3a';
let server: Server;
let port: number;
let base: string;
const requests: { path: string; headers: IncomingHttpHeaders; body: Buffer }[] = [];
let connections = 0;

before(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      requests.push({ path, headers: req.headers, body: Buffer.concat(chunks) });
      switch (path) {
        case '/never':
          return; // never answers
        case '/slow-body':
          res.writeHead(200);
          res.write('partial'); // and never ends
          return;
        case '/reset':
          req.socket.destroy();
          return;
        case '/301':
          res.writeHead(301, { location: `${base}/200` }).end();
          return;
        case '/big':
          res.writeHead(200).end('é'.repeat(5000)); // 2-byte characters across the 1 KB cut
          return;
      }
      const status = Number(path.slice(1)) || 200;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(`${SECRET_MARKER} ${'x'.repeat(5000)}`);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

after(async () => {
  await closeWebhookAgents();
  server.closeAllConnections();
  server.close();
});

const body = '{"id":"chk_1","status":"COMPLETED","benefits":[]}';
const send = (path: string, extra: Partial<Parameters<typeof sendWebhook>[0]> = {}) =>
  sendWebhook({
    url: base + path,
    body,
    headers: { 'Content-Type': 'application/json' },
    allowPrivate: true,
    ...extra,
  });
const answer = (addresses: LookupAddress[]): ResolveAll & { calls: string[] } => {
  const calls: string[] = [];
  const fn = ((hostname, _options, callback) => {
    calls.push(hostname);
    callback(null, addresses);
  }) as ResolveAll & { calls: string[] };
  fn.calls = calls;
  return fn;
};

describe('sendWebhook outcomes against a real local server', () => {
  test('2xx is delivered; the exact body and signed headers arrive and verify', async () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const secret = 'whsec_send_test_secret_0123456789';
    const headers = buildWebhookHeaders({
      eventType: 'eligibility.completed',
      eventId: 'evt_1',
      timestamp,
      body,
      secret,
      userAgent: 'Elig-Test/1',
    });
    const result = await send('/200', { headers });
    assert.equal(result.outcome, 'delivered');
    assert.equal(result.status, 200);
    assert.ok(result.latencyMs >= 0 && result.latencyMs < 5000);
    assert.equal(result.error, undefined);
    const received = requests.at(-1)!;
    assert.equal(received.body.toString(), body);
    assert.equal(received.headers['x-webhook-id'], 'evt_1');
    assert.equal(received.headers['user-agent'], 'Elig-Test/1');
    assert.equal(received.headers['content-type'], 'application/json');
    const verified = verifyWebhook({
      secret,
      timestamp: received.headers['x-webhook-timestamp'],
      signature: received.headers['x-webhook-signature'],
      body: received.body,
    });
    assert.deepEqual(verified, { ok: true });
  });

  test('bodies given as bytes are sent unchanged', async () => {
    const bytes = Buffer.from('{"note":"café"}');
    assert.equal((await send('/204', { body: bytes })).outcome, 'delivered');
    assert.deepEqual(requests.at(-1)!.body, bytes);
  });

  test('410 is gone; 500 and 404 are failed; the error never carries the response body', async () => {
    const gone = await send('/410');
    assert.deepEqual([gone.outcome, gone.status], ['gone', 410]);
    assert.match(gone.error!, /410 Gone.*not be retried/);
    for (const status of [500, 404, 429]) {
      const failed = await send(`/${status}`);
      assert.deepEqual([failed.outcome, failed.status], ['failed', status]);
      assert.match(failed.error!, new RegExp(`answered ${status}`));
      assert.ok(!failed.error!.includes(SECRET_MARKER), 'no body in the error');
      assert.ok(failed.responseSnippet!.startsWith(SECRET_MARKER), 'the body is only in the snippet');
    }
  });

  test('the response snippet stops at 1 KB and does not split a character', async () => {
    const result = await send('/big');
    assert.equal(result.outcome, 'delivered');
    const bytes = Buffer.byteLength(result.responseSnippet!);
    assert.ok(bytes <= RESPONSE_SNIPPET_BYTES && bytes >= RESPONSE_SNIPPET_BYTES - 1, String(bytes));
    assert.match(result.responseSnippet!, /^é+$/);
  });

  test('a 301 is a failure that says redirects are not followed, and the target is not requested', async () => {
    const before = requests.length;
    const result = await send('/301');
    assert.deepEqual([result.outcome, result.status], ['failed', 301]);
    assert.match(result.error!, /redirect.*not followed/);
    // A client that follows a redirect requests the target before it answers, and the answer is the 301's.
    assert.equal(requests.length, before + 1, 'only the original URL was requested');
    assert.deepEqual(
      requests.slice(before).map((r) => r.path),
      ['/301'],
    );
  });

  test('no answer within the time limit is a failure naming the limit', async () => {
    const result = await send('/never', { timeoutMs: 250 });
    assert.equal(result.outcome, 'failed');
    assert.equal(result.status, undefined);
    assert.match(result.error!, /No answer within 250 ms/);
    assert.ok(result.latencyMs >= 200 && result.latencyMs < 3000, `${result.latencyMs} ms`);
  });

  test('a 200 whose body never ends is delivered once the time limit cuts the read', async () => {
    const result = await send('/slow-body', { timeoutMs: 300 });
    assert.deepEqual([result.outcome, result.status, result.responseSnippet], ['delivered', 200, 'partial']);
    assert.ok(result.latencyMs < 3000, `${result.latencyMs} ms`);
  });

  test('connection refused and connection reset are failures with a human reason', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const refused = await sendWebhook({
      url: `http://127.0.0.1:${closedPort}/x`,
      body,
      headers: {},
      allowPrivate: true,
    });
    assert.equal(refused.outcome, 'failed');
    assert.match(refused.error!, /Connection refused/);

    const reset = await send('/reset');
    assert.equal(reset.outcome, 'failed');
    assert.match(reset.error!, /closed the connection/);
  });

  test('a shutdown signal interrupts the attempt as a failure to retry', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await send('/never', { signal: controller.signal });
    assert.equal(result.outcome, 'failed');
    assert.match(result.error!, /interrupted/);
  });
});

describe('sendWebhook refuses private targets unless allowed', () => {
  test('loopback by literal address or the name localhost is refused before connecting', async () => {
    const before = connections;
    for (const url of [
      `https://127.0.0.1:${port}/200`,
      `https://localhost:${port}/200`,
      `https://[::1]:${port}/200`,
      `http://example.com:${port}/200`,
    ]) {
      const result = await sendWebhook({ url, body, headers: {}, allowPrivate: false });
      assert.equal(result.outcome, 'refused', url);
      assert.ok(result.error!.length > 20, url);
      assert.equal(result.latencyMs, 0);
    }
    assert.equal(connections, before, 'no TCP connection was made');
  });

  test('DNS rebinding: a public-looking name resolving to loopback is refused at connect time', async () => {
    const before = connections;
    for (const addresses of [
      [{ address: '127.0.0.1', family: 4 }],
      [
        { address: '93.184.216.34', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ],
      [{ address: '::ffff:127.0.0.1', family: 6 }],
      [{ address: '169.254.169.254', family: 4 }],
    ]) {
      const lookup = answer(addresses);
      const url = `https://hooks.example.com:${port}/200`;
      const result = await sendWebhook({ url, body, headers: {}, allowPrivate: false, lookup });
      assert.equal(result.outcome, 'refused', JSON.stringify(addresses));
      assert.match(result.error!, /resolves to a private, loopback or reserved address/);
      assert.ok(!result.error!.includes('127.0.0.1'), 'the resolved address is not revealed');
      assert.deepEqual(lookup.calls, ['hooks.example.com'], 'refused by the connect-time lookup');
    }
    assert.equal(connections, before, 'no TCP connection reached the server');
  });

  test('the same name and resolver with private targets allowed does connect (the guard made the difference)', async () => {
    const lookup = answer([{ address: '127.0.0.1', family: 4 }]);
    const result = await sendWebhook({
      url: `http://hooks.example.com:${port}/200`,
      body,
      headers: {},
      allowPrivate: true,
      lookup,
    });
    assert.equal(result.outcome, 'delivered');
    assert.equal(requests.at(-1)!.headers.host, `hooks.example.com:${port}`);
  });

  test('a name that does not resolve is a failure, not a refusal', async () => {
    const lookup: ResolveAll = (_h, _o, cb) =>
      cb(Object.assign(new Error('nope'), { code: 'ENOTFOUND' }), []);
    const result = await sendWebhook({
      url: 'https://nowhere.example.com/x',
      body,
      headers: {},
      allowPrivate: false,
      lookup,
    });
    assert.equal(result.outcome, 'failed');
    assert.match(result.error!, /could not be resolved \(ENOTFOUND\)/);
  });
});

describe('connect-time lookup guard', () => {
  const call = (lookup: ReturnType<typeof guardLookup>, options: object) =>
    new Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family?: number }>((resolve) =>
      lookup('hooks.example.com', options, (err, address, family) => resolve({ err, address, family })),
    );

  test('public answers pass through in both lookup shapes, honouring the family asked for', async () => {
    const addresses = [
      { address: '2606:4700::1111', family: 6 },
      { address: '93.184.216.34', family: 4 },
    ];
    const guard = guardLookup(answer(addresses));
    assert.deepEqual(await call(guard, { all: true }), { err: null, address: addresses, family: undefined });
    assert.deepEqual(await call(guard, {}), { err: null, address: '2606:4700::1111', family: 6 });
    assert.deepEqual(await call(guard, { family: 4 }), { err: null, address: '93.184.216.34', family: 4 });
  });

  test('any forbidden answer refuses; no answer is ENOTFOUND', async () => {
    const refused = await call(guardLookup(answer([{ address: '10.0.0.1', family: 4 }])), {});
    assert.equal(refused.err?.name, 'RefusedAddressError');
    const empty = await call(guardLookup(answer([])), { all: true });
    assert.equal(empty.err?.code, 'ENOTFOUND');
  });

  test('one Agent per allowPrivate setting, reused', () => {
    assert.equal(webhookAgent(false), webhookAgent(false));
    assert.equal(webhookAgent(true), webhookAgent(true));
    assert.notEqual(webhookAgent(false), webhookAgent(true));
  });

  test('closing the Agents (shutdown) does not break later sends, with or without a custom resolver', async () => {
    const lookup = answer([{ address: '127.0.0.1', family: 4 }]);
    const viaName = () =>
      sendWebhook({
        url: `http://hooks.example.com:${port}/200`,
        body,
        headers: {},
        allowPrivate: true,
        lookup,
      });
    assert.equal((await viaName()).outcome, 'delivered');
    const before = webhookAgent(true);
    await closeWebhookAgents();
    assert.notEqual(webhookAgent(true), before, 'a fresh Agent after closing');
    assert.equal((await send('/200')).outcome, 'delivered');
    assert.equal((await viaName()).outcome, 'delivered');
  });

  test('TLS problems are described as such', () => {
    assert.match(
      describeConnectionError({ code: 'CERT_HAS_EXPIRED' }),
      /TLS connection failed \(CERT_HAS_EXPIRED\)/,
    );
    assert.match(describeConnectionError({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }), /certificate/);
    assert.match(describeConnectionError({ name: 'Weird' }), /Connection failed \(Weird\)/);
  });
});
