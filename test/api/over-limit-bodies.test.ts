/**
 * A body over the limit is answered 413 with the `{code, message}` envelope, and every client reads it: the
 * server drains (and discards) a bounded amount of the body before it closes, instead of closing while the
 * client is still sending (Node's `fetch` and `http` then fail with EPIPE or a reset and never see the 413).
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
before(async () => {
  svc = await startTestService({ roles: { api: true, worker: false } });
});
after(() => svc.stop());

const MB = 1024 * 1024;

async function postWithFetch(path: string, bytes: number) {
  const res = await fetch(`${svc.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Key ${svc.apiKey}`, 'content-type': 'application/json' },
    body: `{"pad":"${'x'.repeat(bytes - 10)}"}`,
  });
  return { status: res.status, body: (await res.json()) as { code: string; message: string } };
}

test('fetch posting a 2 MB submit reads the 413 and its envelope', async () => {
  const { status, body } = await postWithFetch('/api/eligibility', 2 * MB);
  assert.equal(status, 413);
  assert.equal(body.code, 'ValidationException');
  assert.match(body.message, /exceeds 65536 bytes/);
});

test('fetch posting a 17 MB batch reads the 413 and its envelope', async () => {
  const { status, body } = await postWithFetch('/api/eligibility/batch', 17 * MB);
  assert.equal(status, 413);
  assert.equal(body.code, 'ValidationException');
  assert.match(body.message, /exceeds 16777216 bytes/);
});

test('node:http posting a 2 MB submit in chunks (no Content-Length) reads the 413', async () => {
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      `${svc.url}/api/eligibility`,
      {
        method: 'POST',
        headers: { authorization: `Key ${svc.apiKey}`, 'content-type': 'application/json' },
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => {
          body += d.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    const chunk = 'x'.repeat(64 * 1024);
    req.write('{"pad":"');
    for (let i = 0; i < 32; i++) req.write(chunk);
    req.end('"}');
  });
  assert.equal(answer.status, 413);
  assert.equal((JSON.parse(answer.body) as { code: string }).code, 'ValidationException');
});

/**
 * Sends a whole over-limit body as fast as the connection takes it, reading the answer as it comes, and
 * resolves once the connection is closed: with the answer, and the socket error if it was reset.
 */
function postWholeBody(path: string, bytes: number): Promise<{ answer: string; error?: string }> {
  const { port } = new URL(svc.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    let error: string | undefined;
    socket.on('connect', () => {
      socket.write(
        [
          `POST ${path} HTTP/1.1`,
          `host: 127.0.0.1:${port}`,
          `authorization: Key ${svc.apiKey}`,
          'content-type: application/json',
          `content-length: ${bytes}`,
          '',
          '',
        ].join('\r\n'),
      );
      socket.write(Buffer.alloc(bytes, 'x'), () => socket.end());
    });
    socket.on('data', (d: Buffer) => {
      answer += d.toString('latin1');
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      error = err.code ?? err.message;
    });
    socket.on('close', () => resolve({ answer, ...(error ? { error } : {}) }));
  });
}

test('a client still sending its over-limit body is not reset: the server drains it after the 413', async () => {
  const submit = await postWholeBody('/api/eligibility', 2 * MB);
  assert.equal(submit.error, undefined, 'the connection was reset while the client was sending');
  assert.match(submit.answer, /^HTTP\/1\.1 413 /);
  assert.match(submit.answer, /"code":"ValidationException"/);
  const batch = await postWholeBody('/api/eligibility/batch', 17 * MB);
  assert.equal(batch.error, undefined, 'the connection was reset while the client was sending');
  assert.match(batch.answer, /^HTTP\/1\.1 413 /);
});
