/** GET /api/payers: the directory as clients read it, with `?q=` over ids, aliases and names. */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { deref } from '../helpers/openapi.ts';
import { payersFixture } from '../helpers/payers-file.ts';
import { client, startTestService, type TestService } from '../helpers/service.ts';

const fixture = payersFixture();
let svc: TestService;
before(async () => {
  svc = await startTestService({
    roles: { api: true, worker: false },
    config: { payersFile: fixture.path },
    connectorFactories: fixture.factories,
    secretEnv: fixture.env,
  });
});
after(async () => {
  await svc.stop();
  rmSync(fixture.dir, { recursive: true, force: true });
});

test('lists the sandbox first, then the file in order: id, name, aliases, connector type', async () => {
  const res = await client(svc.url, svc.apiKey).get('/api/payers');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, {
    payers: [
      { id: 'SANDBOX', name: 'Sandbox Health Plan', aliases: [], connectorType: 'sandbox' },
      {
        id: 'ACME',
        name: 'Acme Health Plan',
        aliases: ['87726', 'ACME-OLD'],
        connectorType: 'caqh-core-soap',
      },
      { id: 'CIGNA-STEDI', name: 'Cigna (via clearinghouse)', aliases: [], connectorType: 'x12-json' },
      { id: 'LOCKEDOUT', name: 'Locked Out Mutual', aliases: [], connectorType: 'x12-json' },
    ],
  });
});

test('?q= finds payers by id, alias or name, ignoring case', async () => {
  const c = client(svc.url, svc.apiKey);
  const ids = async (q: string) =>
    ((await c.get(`/api/payers?q=${encodeURIComponent(q)}`)).body.payers as { id: string }[]).map(
      (p) => p.id,
    );
  assert.deepEqual(await ids('acme'), ['ACME']);
  assert.deepEqual(await ids('877'), ['ACME'], 'an alias');
  assert.deepEqual(await ids('CLEARINGHOUSE'), ['CIGNA-STEDI'], 'a name, any case');
  assert.deepEqual(await ids('health plan'), ['SANDBOX', 'ACME']);
  assert.deepEqual(await ids('nobody'), []);
  assert.deepEqual(await ids(''), ['SANDBOX', 'ACME', 'CIGNA-STEDI', 'LOCKEDOUT']);
});

test('?q= ranks: typos and word order forgiven, the best match first; ?limit= caps the list', async () => {
  const c = client(svc.url, svc.apiKey);
  const ids = async (query: string) =>
    ((await c.get(`/api/payers?${query}`)).body.payers as { id: string }[]).map((p) => p.id);
  assert.deepEqual(await ids('q=acme%20helth'), ['ACME'], 'a typo');
  assert.deepEqual(
    await ids('q=plan%20health%20acme'),
    ['ACME', 'SANDBOX'],
    'word order; the fuller match first',
  );
  assert.deepEqual(await ids('q=CIGNA-STEDI'), ['CIGNA-STEDI'], 'an exact id');
  assert.deepEqual(await ids('q=acme-old'), ['ACME'], 'an exact alias');
  assert.deepEqual(await ids('q=health&limit=1'), ['SANDBOX']);
  assert.deepEqual(await ids('limit=2'), ['SANDBOX', 'ACME'], 'no q: directory order, capped');
  const res = await c.get('/api/payers?q=acme&limit=1000');
  assert.deepEqual(Object.keys(res.body.payers[0]), ['id', 'name', 'aliases', 'connectorType']);
});

test('the OpenAPI document describes the operation and its errors', async () => {
  const doc = (await client(svc.url).get('/openapi.json')).body;
  const op = doc.paths['/api/payers'].get;
  assert.deepEqual(Object.keys(op.responses).sort(), ['200', '400', '401', '403', '429', '500', '503']);
  assert.deepEqual(op.security, [{ ApiKeyAuth: [] }]);
  assert.deepEqual(
    op.parameters.map((p: { name: string }) => p.name),
    ['q', 'limit'],
  );
  assert.match(op.description, /best first/);
  const list = deref(doc, op.responses['200'].content['application/json'].schema);
  assert.deepEqual(Object.keys(deref(doc, list.properties.payers.items).properties), [
    'id',
    'name',
    'aliases',
    'connectorType',
  ]);
});

test('SANDBOX_ENABLED=0 leaves the sandbox out of the list', async () => {
  const noSandbox = await startTestService({
    roles: { api: true, worker: false },
    config: { payersFile: fixture.path, sandboxEnabled: false },
    connectorFactories: fixture.factories,
    secretEnv: fixture.env,
  });
  try {
    const res = await client(noSandbox.url, noSandbox.apiKey).get('/api/payers');
    assert.deepEqual(
      res.body.payers.map((p: { id: string }) => p.id),
      ['ACME', 'CIGNA-STEDI', 'LOCKEDOUT'],
    );
  } finally {
    await noSandbox.stop();
  }
});
