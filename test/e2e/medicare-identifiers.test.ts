/**
 * Medicare identifiers and coordination of benefits end to end, on the store the suite runs on (PGlite, or
 * PostgreSQL with DATABASE_URL). A CMS-like test payer, the sandbox connector under a directory entry that
 * says `memberIdFormat: "mbi"`, refuses ids that are not MBIs at submit (400, never stored), and the AAA 72
 * the sandbox answers a well-formed MBI (not one of its members) says what an MBI is. The sandbox's own
 * members keep their ids, and SBX1000014's Medicare answer names its primary payer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MBI_RESOLUTIONS } from '../../src/checks/error-catalog.ts';
import { sandboxPayerEntry } from '../../src/payers/directory.ts';
import { createSandboxConnector } from '../../src/payers/sandbox/index.ts';
import { member } from '../helpers/members.ts';
import {
  client,
  SANDBOX_PROVIDER,
  sandboxRequest,
  startTestService,
  submitAndWait,
  type TestService,
} from '../helpers/service.ts';

const MEDICARE_ID = 'SANDBOX-MEDICARE';
let svc: TestService;

before(async () => {
  const sandbox = createSandboxConnector({ latencyMs: 0 });
  svc = await startTestService({
    payers: [
      sandboxPayerEntry(sandbox),
      {
        ...sandboxPayerEntry(sandbox),
        tradingPartnerServiceId: MEDICARE_ID,
        payerName: 'Sandbox Medicare',
        payerId: 'SBXMCR',
        memberIdFormat: 'mbi',
      },
    ],
  });
});
after(() => svc.stop());

const ruth = member('SBX1000014');
const medicare = (memberId: string) => ({
  tradingPartnerServiceId: MEDICARE_ID,
  provider: SANDBOX_PROVIDER,
  subscriber: { ...ruth, memberId },
});

describe('a payer whose member ids are MBIs', () => {
  for (const [label, memberId, message] of [
    ['an SSN', '123-45-6789', /which Medicare no longer accepts/],
    ['an excluded letter (O)', '1EG4-TE5-MK7O', /character 11 is one of the letters MBIs never use/],
    [
      'the letter S where a letter may stand',
      '1SG4-TE5-MK73',
      /character 2 is one of the letters MBIs never use/,
    ],
    ['a sandbox member id', ruth.memberId, /has 10 characters, not 11/],
  ] as const) {
    test(`refuses ${label} at submit: 400 ValidationException saying what an MBI looks like`, async () => {
      const res = await client(svc.url, svc.apiKey).post('/api/eligibility', medicare(memberId));
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.code, 'ValidationException');
      assert.match(res.body.message, /subscriber\.memberId/);
      assert.match(res.body.message, message);
      assert.match(res.body.message, /1EG4-TE5-MK73/);
      assert.ok(!res.body.message.includes(memberId.replaceAll('-', '')), 'the id is not echoed');
    });
  }

  test('takes a well-formed MBI; the AAA 72 it is answered with carries the MBI resolutions', async () => {
    const { accepted, result } = await submitAndWait(client(svc.url, svc.apiKey), medicare('1eg4-te5-mk73'));
    assert.deepEqual(
      accepted.requestCorrections.map((c: any) => c.code),
      ['MEMBER_ID_SEPARATORS_REMOVED', 'MEMBER_ID_UPPERCASED'],
    );
    assert.equal(result.status, 'FAILED');
    assert.equal(result.subscriber.memberId, '1EG4TE5MK73');
    assert.equal(result.errors[0].code, '72');
    assert.equal(result.errors[0].possibleResolutions, MBI_RESOLUTIONS);
    assert.equal(result.errors[0].followupAction, 'Please Correct and Resubmit');
  });

  test('the sandbox payer itself is unchanged: AAA 72 there has the general member id advice', async () => {
    const { result } = await submitAndWait(
      client(svc.url, svc.apiKey),
      sandboxRequest({ ...ruth, memberId: '1EG4TE5MK73' }),
    );
    assert.equal(result.errors[0].code, '72');
    assert.notEqual(result.errors[0].possibleResolutions, MBI_RESOLUTIONS);
  });
});

describe('SBX1000013 and SBX1000014: other coverage and its order through the API', () => {
  test('SBX1000014: Medicare Part B, the employer group health plan pays first (MSP working aged)', async () => {
    const { result } = await submitAndWait(client(svc.url, svc.apiKey), sandboxRequest(ruth));
    assert.equal(result.verdict.status, 'ACTIVE');
    assert.match(result.verdict.summary, /; another payer is primary: CONTOSO EMPLOYER GROUP HEALTH PLAN/);
    assert.equal(result.otherCoverage.length, 1);
    assert.equal(result.otherCoverage[0].order, 'PRIMARY');
    assert.equal(result.otherCoverage[0].insuranceTypeCode, '12');
    assert.ok(result.warnings.some((w: any) => w.code === 'OTHER_COVERAGE'));
  });

  test('SBX1000013: a commercial plan pays first; the other members report no other coverage', async () => {
    const c = client(svc.url, svc.apiKey);
    const lucas = (await submitAndWait(c, sandboxRequest(member('SBX1000013')))).result;
    assert.equal(lucas.otherCoverage[0].payerName, 'NORTHWIND COMMERCIAL HEALTH');
    assert.equal(lucas.otherCoverage[0].order, 'PRIMARY');
    const jane = (await submitAndWait(c, sandboxRequest(member('SBX1000001')))).result;
    assert.equal(jane.otherCoverage, undefined);
    assert.ok(!jane.warnings.some((w: any) => w.code === 'OTHER_COVERAGE'));
  });
});
