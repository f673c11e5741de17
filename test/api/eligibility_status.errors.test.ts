/**
 * Failure guidance on the status answer: every error a finished check carries, and every dependent's
 * aaaErrors, has the table's description, follow-up action and possible resolutions (docs/errors.md).
 * The sandbox answers each of the spec's AAA codes; SH01 comes from an unknown payer.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ERROR_CATALOG } from '../../src/checks/error-catalog.ts';
import { member } from '../helpers/members.ts';
import {
  client,
  sandboxRequest,
  startTestService,
  submitAndWait,
  type TestService,
} from '../helpers/service.ts';

const JANE = member('SBX1000001');
let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.stop());

async function run(body: object) {
  return (await submitAndWait(client(svc.url, svc.apiKey), body)).result;
}

function assertGuided(error: any, code: string) {
  const g = ERROR_CATALOG.get(code)!;
  assert.equal(error.code, code);
  assert.equal(error.description, g.description);
  assert.equal(error.followupAction, g.followupAction);
  assert.equal(error.possibleResolutions, g.possibleResolutions);
}

const wrongDob = JANE.dateOfBirth.replace(/^(\d{4})/, (y) => String(Number(y) + 1));

for (const [name, request, code] of [
  ['67 Patient not found', sandboxRequest(member('SBX1000067')), '67'],
  ['77 Subscriber found, patient not found', sandboxRequest(member('SBX1000077')), '77'],
  ['72 Invalid/Missing subscriber/insured ID', sandboxRequest({ ...JANE, memberId: 'NOTSANDBOX1' }), '72'],
  ['75 Subscriber/Insured not found', sandboxRequest({ ...JANE, memberId: 'SBX9999999' }), '75'],
  ['73 Invalid/Missing subscriber/insured name', sandboxRequest({ ...JANE, lastName: 'SOMEONE' }), '73'],
  ['71 birth date does not match', sandboxRequest({ ...JANE, dateOfBirth: wrongDob }), '71'],
  ['SH01 Payer not supported', { ...sandboxRequest(JANE), tradingPartnerServiceId: 'NO_SUCH_PAYER' }, 'SH01'],
] as const) {
  test(`FAILED ${name}: the error carries the table's guidance`, async () => {
    const result = await run(request);
    assert.equal(result.status, 'FAILED');
    assert.equal(result.errors.length, 1);
    assertGuided(result.errors[0], code);
    assert.equal(result.verdict.reason, code);
  });
}

test("a dependent's aaaErrors carry the same guidance", async () => {
  const result = await run(sandboxRequest(member('SBX1000010')));
  assert.equal(result.status, 'COMPLETED');
  const withErrors = result.dependents.filter((d: any) => d.aaaErrors?.length);
  assert.equal(withErrors.length, 1);
  assertGuided(withErrors[0].aaaErrors[0], '73');
  assert.equal(withErrors[0].aaaErrors[0].location, 'Loop 2100D');
});
