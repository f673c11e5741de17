/**
 * The portal's multipart reader (src/portal/multipart.ts), read as the body arrives: the same form whatever
 * the chunks (one byte at a time, a multi-byte character split between two), malformed bodies refused as a
 * 400 page, and through HTTP the 8 MB limit answered 413 (announced, or counted on a chunked body) with the
 * page read by the client, never a reset or a 500.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { MultipartFormReader, parseMultipartForm } from '../../src/portal/multipart.ts';
import { BATCH_UPLOAD_LIMIT_BYTES } from '../../src/portal/routes/batches.ts';
import { type PortalClient, type PortalHarness, signInWithLink, startPortal } from './helpers.ts';

/** A body as a browser (undici's FormData) encodes it, with its content type. */
async function encoded(fill: (form: FormData) => void): Promise<{ type: string; body: Buffer }> {
  const form = new FormData();
  fill(form);
  const req = new Request('http://portal.test/', { method: 'POST', body: form });
  return { type: req.headers.get('content-type')!, body: Buffer.from(await req.arrayBuffer()) };
}

function inChunks(type: string, body: Buffer, size: number) {
  const reader = new MultipartFormReader(type);
  for (let i = 0; i < body.length; i += size) reader.write(body.subarray(i, i + size));
  return reader.end();
}

const SCHEDULE = 'payer,first_name\r\nSANDBOX,Zoë 😀\r\n';

test('the same form whole, a byte at a time, or in any chunks; names repeated become lists', async () => {
  const { type, body } = await encoded((f) => {
    f.append('_csrf', 'token');
    f.append('name', 'Mañana');
    f.append('name', '');
    f.append('file', new Blob([SCHEDULE], { type: 'text/csv' }), 'schedule "1".csv');
  });
  const expected = {
    _csrf: 'token',
    name: ['Mañana', ''],
    file: SCHEDULE,
    'file.filename': 'schedule %221%22.csv',
  };
  assert.deepEqual(parseMultipartForm(type, body), expected);
  for (const size of [1, 2, 3, 7, 64, 1000])
    assert.deepEqual(inChunks(type, body, size), expected, `${size}`);
});

test('a boundary-like line inside a value, a preamble and an epilogue are read as they should be', () => {
  const type = 'multipart/form-data; boundary="b0"';
  const body = Buffer.from(
    'ignored preamble\r\n--b0\r\ncontent-disposition: form-data; name="csv"\r\n\r\n--b0x\r\n\r\n--b\r\n--b0  \r\n' +
      'Content-Disposition: form-data; name="x"\r\nContent-Type: text/plain\r\n\r\n1\r\n--b0--\r\nepilogue',
  );
  const expected = { csv: '--b0x\r\n\r\n--b', x: '1' };
  assert.deepEqual(parseMultipartForm(type, body), expected);
  assert.deepEqual(inChunks(type, body, 1), expected);
});

test('malformed bodies are refused with a 400', () => {
  const refused = (type: string, body: string, why: RegExp) =>
    assert.throws(
      () => parseMultipartForm(type, Buffer.from(body)),
      (err: Error & { statusCode?: number }) => err.statusCode === 400 && why.test(err.message),
    );
  const type = 'multipart/form-data; boundary=b';
  refused('multipart/form-data', '', /boundary/);
  refused('multipart/form-data; boundary=', '', /boundary/);
  refused(type, 'no delimiter at all', /ended before its closing boundary/);
  refused(type, '--b\r\ncontent-disposition: form-data; name="a"\r\n\r\ncut short', /ended before/);
  refused(type, '--b\r\ncontent-type: text/plain\r\n\r\nx\r\n--b--', /has no name/);
  refused(type, '--b\r\n\r\nx\r\n--b--', /has no name/);
  refused(type, '--bjunk\r\n', /followed by garbage/);
  refused(type, `--b\r\nx-long: ${'a'.repeat(17 * 1024)}`, /too long a header/);
  const part = '--b\r\ncontent-disposition: form-data; name="a"\r\n\r\n1\r\n';
  refused(type, `${part.repeat(51)}--b--`, /too many parts/);
});

let h: PortalHarness;
let owner: PortalClient;
before(async () => {
  h = await startPortal();
  owner = await signInWithLink(h.url, h.loginPath);
});
after(() => h.stop());

/** Posts `size` bytes of multipart to the batch upload with node:http; resolves with the answer. */
function post(size: number, chunked: boolean): Promise<{ status: number; text: string }> {
  const cookie = [...owner.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const head = '--b\r\ncontent-disposition: form-data; name="file"; filename="s.csv"\r\n\r\n';
  return new Promise((resolve, reject) => {
    const req = request(`${h.url}/portal/batches`, {
      method: 'POST',
      headers: {
        cookie,
        'content-type': 'multipart/form-data; boundary=b',
        ...(chunked ? {} : { 'content-length': String(size) }),
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.write(head);
    const piece = Buffer.alloc(64 * 1024, 'a');
    let left = size - head.length;
    const more = () => {
      while (left > 0) {
        const n = Math.min(left, piece.length);
        left -= n;
        if (!req.write(piece.subarray(0, n))) return void req.once('drain', more);
      }
      req.end();
    };
    more();
  });
}

test('over 8 MB is answered 413 with the page, announced or counted on a chunked body', async () => {
  for (const chunked of [false, true]) {
    const answer = await post(BATCH_UPLOAD_LIMIT_BYTES + 1024, chunked);
    assert.equal(answer.status, 413, `chunked: ${chunked}`);
    assert.match(answer.text, /Form too large/);
  }
  // Within the limit, the body is read to its end: a form without its closing boundary is a 400 page.
  const within = await post(64 * 1024, true);
  assert.equal(within.status, 400);
  assert.match(within.text, /Request not understood/);
});
