/**
 * Small defects found when the service was tried as a new user would (issue 16 section 6): `GET /` in a
 * browser goes to the portal (other clients get a JSON map of where things are), and checks run from the
 * portal are counted in elig_checks_submitted_total like API checks.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ROOT_LINKS } from '../../src/api/routes/root.ts';
import { member } from '../helpers/members.ts';
import { client, sandboxRequest, startTestService, type TestService } from '../helpers/service.ts';
import { signInWithLink } from './helpers.ts';

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.stop());

test('GET / sends a browser to the portal and gives API clients a JSON map pointing at /openapi.json', async () => {
  const browser = await fetch(`${svc.url}/`, {
    headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    redirect: 'manual',
  });
  assert.equal(browser.status, 303);
  assert.equal(browser.headers.get('location'), '/portal');

  for (const accept of ['application/json', '*/*']) {
    const api = await fetch(`${svc.url}/`, { headers: { accept }, redirect: 'manual' });
    assert.equal(api.status, 200, accept);
    assert.match(api.headers.get('content-type') ?? '', /^application\/json/);
    const body = await api.json();
    assert.deepEqual(body, { ...ROOT_LINKS });
    assert.equal(body.openapi, '/openapi.json');
    assert.equal((await fetch(`${svc.url}${body.openapi}`)).status, 200, 'the pointer works');
  }
});

async function submittedTotal(): Promise<number> {
  const text = await (await fetch(`${svc.url}/metrics`)).text();
  const line = /^elig_checks_submitted_total\{payer="SANDBOX"\} (\d+)$/m.exec(text);
  return line ? Number(line[1]) : 0;
}

test('a check run from the portal counts in elig_checks_submitted_total, like one from the API', async () => {
  const start = await submittedTotal();
  await client(svc.url, svc.apiKey).post('/api/eligibility', sandboxRequest(member('SBX1000002')));
  assert.equal(await submittedTotal(), start + 1, 'API');

  const owner = await signInWithLink(svc.url, svc.service.bootstrap!.loginPath);
  const jane = member('SBX1000001');
  const res = await owner.submit('/portal/checks/new', '/portal/checks/new', {
    tradingPartnerServiceId: 'SANDBOX',
    'provider.organizationName': 'Demo Clinic',
    'provider.npi': '1234567893',
    'subscriber.memberId': jane.memberId,
    'subscriber.firstName': jane.firstName,
    'subscriber.lastName': jane.lastName,
    'subscriber.dateOfBirth': jane.dateOfBirth,
  });
  assert.equal(res.status, 303);
  assert.equal(await submittedTotal(), start + 2, 'portal');

  const invalid = await owner.submit('/portal/checks/new', '/portal/checks/new', {
    tradingPartnerServiceId: 'SANDBOX',
    'provider.npi': '1',
  });
  assert.equal(invalid.status, 400);
  assert.equal(await submittedTotal(), start + 2, 'a refused form is not counted');
});
