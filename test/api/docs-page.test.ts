// GET /docs over HTTP (test/browser/docs.test.ts renders it): the page, its fixed list of assets, gzip for
// clients that ask, a policy that allows nothing from elsewhere, and nothing else of node_modules reachable.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
before(async () => {
  svc = await startTestService({ roles: { api: true, worker: false } });
});
after(() => svc.stop());

test('the page loads its renderer from this origin only, under a strict policy', async () => {
  const res = await fetch(`${svc.url}/docs`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self'(;|$)/);
  const html = await res.text();
  assert.ok(!/<script>/.test(html), 'no inline script');
  for (const [, src] of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
    assert.ok(src!.startsWith('/'), `${src} is on this origin`);
  }
});

test('assets are served whole, gzipped when asked; other names are a 404 with the envelope', async () => {
  const plain = await fetch(`${svc.url}/docs/assets/swagger-ui-bundle.js`, {
    headers: { 'accept-encoding': 'identity' },
  });
  const body = Buffer.from(await plain.arrayBuffer());
  assert.equal(plain.status, 200);
  assert.equal(plain.headers.get('content-encoding'), null);
  const { request } = await import('undici');
  const zipped = await request(`${svc.url}/docs/assets/swagger-ui-bundle.js`, {
    headers: { 'accept-encoding': 'gzip' },
  });
  assert.equal(zipped.headers['content-encoding'], 'gzip');
  const compressed = Buffer.from(await zipped.body.arrayBuffer());
  assert.ok(compressed.length < body.length / 2, `${compressed.length} of ${body.length} bytes`);
  assert.ok(gunzipSync(compressed).equals(body));
  for (const name of ['package.json', '..%2Fpackage.json', 'index.html', 'swagger-ui-bundle.js.map']) {
    const res = await fetch(`${svc.url}/docs/assets/${name}`);
    assert.equal(res.status, 404, name);
    assert.equal((await res.json()).code, 'ResourceNotFoundException');
  }
});
