/**
 * Secrets never leave the process: a whole run with payer credentials configured (by environment variable
 * and by file), checks through every connector type, a gateway that refuses the credentials with a
 * message quoting them, logs at trace level, and then every log line, API answer, portal page, metric and
 * stored row is searched for every secret value. None may be found.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { payersFixture } from '../helpers/payers-file.ts';
import {
  client,
  sandboxRequest,
  startTestService,
  type TestService,
  waitForResult,
} from '../helpers/service.ts';
import { signInWithLink } from '../portal/helpers.ts';

const JANE = { memberId: 'SBX1000001', firstName: 'JANE', lastName: 'DOE', dateOfBirth: '19800115' };
const fixture = payersFixture();
let svc: TestService;
before(async () => {
  svc = await startTestService({
    config: { payersFile: fixture.path, logLevel: 'trace', payerOutageWaitMs: 1_000 },
    connectorFactories: fixture.factories,
    secretEnv: fixture.env,
  });
});
after(async () => {
  await svc.stop();
  rmSync(fixture.dir, { recursive: true, force: true });
});

test('no secret value appears in logs, answers, pages, metrics or the store', async () => {
  const api = client(svc.url, svc.apiKey);
  const outputs: [string, string][] = [];
  const ids: string[] = [];
  for (const payer of ['ACME', '87726', 'CIGNA-STEDI', 'LOCKEDOUT']) {
    const res = await api.post('/api/eligibility', {
      ...sandboxRequest(JANE),
      tradingPartnerServiceId: payer,
    });
    assert.equal(res.status, 202);
    ids.push(res.body.id);
  }
  const results = await Promise.all(ids.map((id) => waitForResult(api, id)));
  assert.deepEqual(
    results.map((r) => [r.tradingPartnerServiceId, r.status]),
    [
      ['ACME', 'COMPLETED'],
      ['ACME', 'COMPLETED'],
      ['CIGNA-STEDI', 'COMPLETED'],
      ['LOCKEDOUT', 'FAILED'],
    ],
    'the run exercised every connector, the alias and a refused credential',
  );
  for (const [i, r] of results.entries()) outputs.push([`status ${ids[i]}`, JSON.stringify(r)]);
  for (const path of ['/api/payers', '/api/payers?q=a'])
    outputs.push([path, JSON.stringify((await api.get(path)).body)]);
  for (const path of ['/readyz', '/healthz', '/metrics', '/openapi.json']) {
    outputs.push([path, await fetch(`${svc.url}${path}`).then((r) => r.text())]);
  }
  assert.match(outputs.find(([n]) => n === '/readyz')![1], /LOCKEDOUT.*authentication failed/);

  const portal = await signInWithLink(svc.url, svc.service.bootstrap!.loginPath);
  for (const path of ['/portal/checks/new', '/portal/checks', ...ids.map((id) => `/portal/checks/${id}`)]) {
    outputs.push([path, (await portal.get(path)).text]);
  }
  const { rows } = await svc.service.store.db.query('SELECT * FROM checks');
  outputs.push(['checks table', JSON.stringify(rows)]);
  const logs = svc.logs.text;
  assert.ok(svc.logs.lines.filter((l) => l.includes('"msg":"payer call"')).length >= 4, 'payer calls logged');
  assert.ok(logs.includes('"exchangeId":"caqh-core-soap-exchange-1"'), 'payer calls were logged');
  outputs.push(['logs', logs]);

  for (const [name, text] of outputs) {
    for (const secret of fixture.secrets) assert.ok(!text.includes(secret), `a secret in ${name}`);
    for (const url of fixture.urls) assert.ok(!text.includes(new URL(url).host), `a gateway URL in ${name}`);
  }
});
