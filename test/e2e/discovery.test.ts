/**
 * Insurance discovery end to end, on both stores (docs/discovery.md): the sandbox and two fake
 * clearinghouse gateways in demographic-search mode, behind one payers file. A discovery asks every payer
 * that takes demographic searches and returns the one coverage that exists, and none that do not; the
 * found coverage is an ordinary completed check carrying the member id the payer answered with.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { discoveryRequest, waitForDiscovery } from '../helpers/discovery.ts';
import { member } from '../helpers/members.ts';
import { client, startTestService, type TestService, waitForResult } from '../helpers/service.ts';
import {
  type ClearinghouseFake,
  type SearchableMember,
  startClearinghouseFake,
} from '../payers/fakes/clearinghouse.ts';

/** A made-up person only the first gateway's second payer knows. */
const ALEX: SearchableMember = {
  payerId: 'CH0002',
  memberId: 'GWA000777',
  firstName: 'ALEX',
  lastName: 'EXAMPLE',
  dateOfBirth: '19700101',
};
const env = { GW_A_KEY: 'gateway-a-key', GW_B_KEY: 'gateway-b-key' };

let gatewayA: ClearinghouseFake;
let gatewayB: ClearinghouseFake;
let svc: TestService;
const dir = mkdtempSync(join(tmpdir(), 'elig-discovery-'));

const connection = (fake: ClearinghouseFake, keyEnv: string) => ({
  type: 'x12-json',
  url: fake.url,
  auth: { type: 'api-key', key: { env: keyEnv } },
  limits: { concurrency: 2 },
});

before(async () => {
  gatewayA = await startClearinghouseFake({ apiKey: env.GW_A_KEY, payers: 3, members: [ALEX] });
  gatewayB = await startClearinghouseFake({ apiKey: env.GW_B_KEY, payers: 2 });
  const payers = [
    ...gatewayA.payers.map((p) => ({ id: `A-${p.id}`, name: `A ${p.name}`, payerId: p.id, connection: 'a' })),
    ...gatewayB.payers.map((p) => ({ id: `B-${p.id}`, name: `B ${p.name}`, payerId: p.id, connection: 'b' })),
  ].map((p) => ({ ...p, demographicSearch: true }));
  // One payer of gateway B that does not take demographic searches: never asked.
  payers.push({
    id: 'B-NOSEARCH',
    name: 'B No Search',
    payerId: 'CH0001',
    connection: 'b',
    demographicSearch: false,
  });
  const file = join(dir, 'payers.json');
  writeFileSync(
    file,
    JSON.stringify({
      connections: { a: connection(gatewayA, 'GW_A_KEY'), b: connection(gatewayB, 'GW_B_KEY') },
      payers,
    }),
  );
  // A loaded test machine can take seconds over an HTTP call: time enough that no inquiry is retried.
  svc = await startTestService({
    config: { payersFile: file, payerTimeoutMs: 10_000, leaseMs: 30_000 },
    secretEnv: env,
  });
});

after(async () => {
  await svc?.stop();
  await Promise.all([gatewayA?.close(), gatewayB?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const SEARCHING = ['SANDBOX', 'A-CH0001', 'A-CH0002', 'A-CH0003', 'B-CH0001', 'B-CH0002'];

test('a person known to one gateway payer: that one coverage, none from the others', async () => {
  const c = client(svc.url, svc.apiKey);
  const accepted = await c.post('/api/eligibility/discovery', discoveryRequest(ALEX));
  assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
  // The first calls through each connection are slow on a loaded machine: a wide deadline.
  const done = await waitForDiscovery(c, accepted.body.id, 60_000);
  assert.deepEqual(done.progress, { asked: SEARCHING.length, answered: SEARCHING.length });
  assert.deepEqual(
    done.coverages.map((v: { tradingPartnerServiceId: string }) => v.tradingPartnerServiceId),
    ['A-CH0002'],
  );
  const check = await waitForResult(c, done.coverages[0].checkId);
  assert.equal(check.status, 'COMPLETED');
  assert.equal(check.subscriber.memberId, ALEX.memberId);
  const { rows } = await svc.service.store.db.query<{
    trading_partner_service_id: string;
    outcome_code: string;
  }>('SELECT trading_partner_service_id, outcome_code FROM checks WHERE discovery_id = $1 ORDER BY id', [
    accepted.body.id,
  ]);
  assert.deepEqual(
    rows.map((r) => r.trading_partner_service_id),
    SEARCHING,
  );
  assert.deepEqual(
    rows.map((r) => r.outcome_code),
    ['AAA:75', 'AAA:75', 'COMPLETED', 'AAA:75', 'AAA:75', 'AAA:75'],
  );
  // The gateway's payer answered every inquiry with a 271 (found), none with a 999.
  assert.ok(gatewayA.stats.log.filter((l) => l.payerId === 'CH0002').every((l) => l.answer === '271'));
});

test('a sandbox member: the sandbox coverage only', async () => {
  const c = client(svc.url, svc.apiKey);
  const accepted = await c.post('/api/eligibility/discovery', discoveryRequest(member('SBX1000002')));
  const done = await waitForDiscovery(c, accepted.body.id);
  assert.deepEqual(
    done.coverages.map((v: { tradingPartnerServiceId: string; planName: string }) => [
      v.tradingPartnerServiceId,
      v.planName,
    ]),
    [['SANDBOX', 'Sandbox HMO Silver']],
  );
});

test('nobody: every payer answers, no coverage', async () => {
  const c = client(svc.url, svc.apiKey);
  const accepted = await c.post(
    '/api/eligibility/discovery',
    discoveryRequest({ ...ALEX, firstName: 'ALEXA' }),
  );
  const done = await waitForDiscovery(c, accepted.body.id);
  assert.deepEqual(done.progress, { asked: SEARCHING.length, answered: SEARCHING.length });
  assert.deepEqual(done.coverages, []);
});
