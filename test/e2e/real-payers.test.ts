/**
 * Real checks through each real connector, end to end: a payers file names three local fake gateways
 * (CAQH CORE SOAP, CAQH CORE MIME, raw X12 over JSON with OAuth2), secrets come by reference, and every
 * check's result is compared field by field with the 271 the fake sent. Runs on both stores.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse271 } from '../../src/x12/parse271.ts';
import {
  client,
  sandboxRequest,
  startTestService,
  type TestService,
  waitForResult,
} from '../helpers/service.ts';
import { type CoreFake, startCoreMimeFake } from '../payers/fakes/core-mime.ts';
import { startCoreSoapFake } from '../payers/fakes/core-soap.ts';
import { startX12JsonFake, type X12JsonFake } from '../payers/fakes/x12-json.ts';

const JANE = { memberId: 'SBX1000001', firstName: 'JANE', lastName: 'DOE', dateOfBirth: '19800115' };
const SENDER = 'ELIGSVC';
const env = {
  E2E_SOAP_USER: 'soap-user-e2e',
  E2E_SOAP_PASSWORD: 'soap-password-e2e-91x',
  E2E_MIME_USER: 'mime-user-e2e',
  E2E_MIME_PASSWORD: 'mime-password-e2e-37q',
  E2E_OAUTH_ID: 'oauth-client-e2e',
  E2E_OAUTH_SECRET: 'oauth-secret-e2e-5kd',
};

let soap: CoreFake;
let mime: CoreFake;
let json: X12JsonFake;
let svc: TestService;
const dir = mkdtempSync(join(tmpdir(), 'elig-real-payers-'));

before(async () => {
  soap = await startCoreSoapFake({
    payerId: 'SOAP01',
    senderId: SENDER,
    receiverId: 'SOAP01',
    username: env.E2E_SOAP_USER,
    password: env.E2E_SOAP_PASSWORD,
  });
  mime = await startCoreMimeFake({
    payerId: 'MIME01',
    senderId: SENDER,
    receiverId: 'MIMEGW',
    username: env.E2E_MIME_USER,
    password: env.E2E_MIME_PASSWORD,
  });
  json = await startX12JsonFake({
    payerId: 'JSON01',
    auth: { type: 'oauth2', clientId: env.E2E_OAUTH_ID, clientSecret: env.E2E_OAUTH_SECRET },
  });
  const file = join(dir, 'payers.json');
  const secret = (name: string) => ({ env: name });
  writeFileSync(
    file,
    JSON.stringify({
      payers: [
        {
          id: 'SOAPPAYER',
          name: 'Soap Health',
          payerId: 'SOAP01',
          connector: {
            type: 'caqh-core-soap',
            url: soap.url,
            username: secret('E2E_SOAP_USER'),
            password: secret('E2E_SOAP_PASSWORD'),
          },
        },
        {
          id: 'MIMEPAYER',
          name: 'Mime Health',
          payerId: 'MIME01',
          aliases: ['MIME-OLD'],
          connector: {
            type: 'caqh-core-mime',
            url: mime.url,
            receiverId: 'MIMEGW',
            username: secret('E2E_MIME_USER'),
            password: secret('E2E_MIME_PASSWORD'),
          },
        },
        {
          id: 'JSONPAYER',
          name: 'Json Health',
          payerId: 'JSON01',
          connector: {
            type: 'x12-json',
            url: json.url,
            // A gateway's test environment: ISA15 T, and the result says applicationMode sandbox.
            usageIndicator: 'T',
            auth: {
              type: 'oauth2-client-credentials',
              tokenUrl: json.tokenUrl,
              clientId: secret('E2E_OAUTH_ID'),
              clientSecret: secret('E2E_OAUTH_SECRET'),
            },
          },
        },
      ],
    }),
  );
  svc = await startTestService({ config: { payersFile: file }, secretEnv: env });
});

after(async () => {
  await svc?.stop();
  await Promise.all([soap?.close(), mime?.close(), json?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

for (const [payer, fake] of [
  ['SOAPPAYER', () => soap],
  ['MIME-OLD', () => mime],
  ['JSONPAYER', () => json],
] as const) {
  test(`a check through ${payer} completes with exactly what the gateway's 271 says`, async () => {
    const api = client(svc.url, svc.apiKey);
    const gateway = fake();
    const sent = gateway.answers.length;
    const res = await api.post('/api/eligibility', {
      ...sandboxRequest(JANE),
      tradingPartnerServiceId: payer,
      encounter: { serviceTypeCodes: ['30', 'PT'] },
    });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const result = await waitForResult(api, res.body.id);
    assert.equal(result.status, 'COMPLETED', JSON.stringify(result.errors));
    assert.equal(gateway.answers.length, sent + 1, 'one call to the gateway');
    assert.deepEqual(gateway.requests.at(-1)!.problems, [], 'the gateway saw a valid request');
    const fields = gateway.requests.at(-1)!.fields;
    const x12_270 = fields.Payload ?? fields.x12 ?? '';
    const isa15 = x12_270.slice(0, 106).split(x12_270[3]!)[15];
    const test = payer === 'JSONPAYER';
    assert.equal(isa15, test ? 'T' : 'P', 'ISA15: production unless the entry says test');
    assert.equal(result.meta.applicationMode, test ? 'sandbox' : 'production');

    const answered = gateway.answers.at(-1)!;
    assert.equal(result.x12, answered, 'the raw 271 is the one the gateway sent');
    const outcome = parse271(answered, { traceNumber: res.body.id.replaceAll('-', '') });
    assert.equal(outcome.kind, '271');
    const parsed = outcome.kind === '271' ? outcome.result : undefined;
    assert.ok(parsed);
    assert.deepEqual(result.benefitsInformation, parsed.benefitsInformation);
    assert.deepEqual(result.planInformation, parsed.planInformation);
    assert.deepEqual(result.planDateInformation, parsed.planDateInformation);
    assert.equal(result.planActive, parsed.planActive);
    assert.deepEqual(result.dependents, parsed.dependents);
    assert.deepEqual(result.subscriberTraceNumbers, parsed.subscriberTraceNumbers);
    for (const [field, value] of Object.entries(parsed.subscriber)) {
      assert.deepEqual(result.subscriber[field], value, `subscriber.${field}`);
    }
    for (const [field, value] of Object.entries(parsed.payer)) {
      assert.deepEqual(result.payer[field], value, `payer.${field}`);
    }
    // The check is stored and answered under the canonical id, also when submitted under an alias.
    assert.equal(result.tradingPartnerServiceId, payer === 'MIME-OLD' ? 'MIMEPAYER' : payer);
    assert.ok(result.benefits.length > 0);
  });
}

test('the OAuth2 token is fetched once and shared across checks', async () => {
  const api = client(svc.url, svc.apiKey);
  const ids = await Promise.all(
    Array.from({ length: 8 }, async () => {
      const res = await api.post('/api/eligibility', {
        ...sandboxRequest(JANE),
        tradingPartnerServiceId: 'JSONPAYER',
      });
      return res.body.id as string;
    }),
  );
  for (const id of ids) assert.equal((await waitForResult(api, id)).status, 'COMPLETED');
  assert.equal(json.tokenRequests.length, 1);
  assert.deepEqual(json.tokenRequests[0]!.problems, []);
});

test('no secret value reaches a log line', () => {
  const logs = svc.logs.text;
  assert.ok(
    svc.logs.lines.some((l) => l.includes('"msg":"payer call"')),
    'payer calls were logged',
  );
  for (const value of Object.values(env)) assert.ok(!logs.includes(value), 'a secret in the logs');
});
