/**
 * Slow clients cannot hold connections: trickled headers or bodies are cut off after the configured
 * limits, and a refused request's body is never read (the connection closes instead of draining it).
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';

const HEADERS_MS = 600;
const REQUEST_MS = 1200;
const KEEP_ALIVE_MS = 500;
/** Node sweeps for expired requests a few times per limit; this is the slack of a busy 2-core host. */
const SLACK_MS = 1500;

let svc: TestService;
let port: number;
before(async () => {
  svc = await startTestService({
    roles: { api: true, worker: false },
    config: {
      httpHeadersTimeoutMs: HEADERS_MS,
      httpRequestTimeoutMs: REQUEST_MS,
      httpKeepAliveTimeoutMs: KEEP_ALIVE_MS,
    },
  });
  port = Number(new URL(svc.url).port);
});
after(() => svc.stop());

interface Outcome {
  /** The status line's code, if an answer came before the close. */
  status?: number;
  closedAfterMs: number;
  bytesSent: number;
}

/**
 * Opens a raw connection, writes `head`, then calls `drip` every `everyMs` until the server closes the
 * connection (or `giveUpMs` passes, which fails the test).
 */
function rawClient(head: string, drip: (() => string) | undefined, everyMs = 50, giveUpMs = 15_000) {
  return new Promise<Outcome>((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1');
    const started = Date.now();
    let answer = '';
    let bytesSent = 0;
    const send = (text: string) => {
      if (socket.writable) socket.write(text, () => {});
      bytesSent += Buffer.byteLength(text);
    };
    let timer: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      send(head);
      if (drip) timer = setInterval(() => send(drip()), everyMs);
    });
    socket.on('data', (d) => {
      answer += d.toString('latin1');
    });
    socket.on('error', () => {}); // a reset after the answer is one way to be cut off
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for ${giveUpMs} ms`));
    }, giveUpMs);
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
      resolve({
        closedAfterMs: Date.now() - started,
        bytesSent,
        ...(status ? { status: Number(status) } : {}),
      });
    });
  });
}

const post = (headers: string[]) =>
  [
    'POST /api/eligibility HTTP/1.1',
    'Host: 127.0.0.1',
    'Content-Type: application/json',
    ...headers,
    '',
    '',
  ].join('\r\n');

test('a body trickled byte by byte after valid headers is cut off at the request timeout (408)', async (t) => {
  const outcome = await rawClient(
    post([`Authorization: Key ${svc.apiKey}`, 'Content-Length: 60000']),
    () => '{',
  );
  t.diagnostic(`trickled body cut off after ${outcome.closedAfterMs} ms (limit ${REQUEST_MS} ms)`);
  assert.equal(outcome.status, 408);
  assert.ok(outcome.closedAfterMs >= REQUEST_MS - 50, `closed after ${outcome.closedAfterMs} ms`);
  assert.ok(outcome.closedAfterMs <= REQUEST_MS + SLACK_MS, `closed after ${outcome.closedAfterMs} ms`);
});

test('headers that never finish (slowloris) are cut off at the headers timeout (408)', async (t) => {
  let n = 0;
  const outcome = await rawClient(
    'POST /api/eligibility HTTP/1.1\r\nHost: 127.0.0.1\r\n',
    () => `X-Pad-${n++}: a\r\n`,
  );
  t.diagnostic(`slowloris cut off after ${outcome.closedAfterMs} ms (limit ${HEADERS_MS} ms)`);
  assert.equal(outcome.status, 408);
  assert.ok(outcome.closedAfterMs <= HEADERS_MS + SLACK_MS, `closed after ${outcome.closedAfterMs} ms`);
});

test('a connection that sends nothing at all is closed at the headers timeout', async () => {
  const outcome = await rawClient('', undefined);
  assert.ok(outcome.closedAfterMs <= HEADERS_MS + SLACK_MS, `closed after ${outcome.closedAfterMs} ms`);
});

test('an unauthenticated POST announcing a huge body gets 401 at once, and its body is never read', async (t) => {
  // No body byte is ever sent: the answer cannot depend on reading it, and the close proves the server
  // does not wait to drain 10 GB (it would otherwise answer 408 at the request timeout).
  const outcome = await rawClient(post(['Content-Length: 10000000000']), undefined);
  t.diagnostic(`401 and close after ${outcome.closedAfterMs} ms`);
  assert.equal(outcome.status, 401);
  assert.ok(outcome.closedAfterMs < REQUEST_MS, `closed after ${outcome.closedAfterMs} ms`);
});

test('an unauthenticated POST is answered before its body arrives, even a body within the limit', async () => {
  const outcome = await rawClient(post(['Content-Length: 60000']), undefined);
  assert.equal(outcome.status, 401);
  assert.ok(outcome.closedAfterMs < REQUEST_MS, `closed after ${outcome.closedAfterMs} ms`);
});

test('an unauthenticated client that keeps sending body bytes is refused and disconnected, not drained', async () => {
  const chunk = 'x'.repeat(16 * 1024);
  const outcome = await rawClient(
    post(['Authorization: Key elig_test_nope', 'Content-Length: 10000000000']),
    () => chunk,
    5,
  );
  assert.equal(outcome.status, 401);
  assert.ok(outcome.closedAfterMs < REQUEST_MS, `closed after ${outcome.closedAfterMs} ms`);
});

test('an authenticated body over the limit is refused (413) without being read', async () => {
  const outcome = await rawClient(
    post([`Authorization: Key ${svc.apiKey}`, 'Content-Length: 10000000000']),
    undefined,
  );
  assert.equal(outcome.status, 413);
  assert.ok(outcome.closedAfterMs < REQUEST_MS, `closed after ${outcome.closedAfterMs} ms`);
});

test('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
  const outcome = await rawClient('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', undefined);
  assert.equal(outcome.status, 200);
  assert.ok(outcome.closedAfterMs >= KEEP_ALIVE_MS - 50, `closed after ${outcome.closedAfterMs} ms`);
  assert.ok(outcome.closedAfterMs <= KEEP_ALIVE_MS + SLACK_MS, `closed after ${outcome.closedAfterMs} ms`);
});

test('a complete, authenticated request on a fast connection is unaffected', async () => {
  const res = await fetch(`${svc.url}/api/eligibility`, {
    method: 'POST',
    headers: { authorization: `Key ${svc.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ nonsense: true }),
  });
  assert.equal(res.status, 400);
  assert.notEqual(res.headers.get('connection'), 'close');
});
