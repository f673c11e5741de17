/**
 * Request repair through the API and the sandbox payer: each rule is applied at submission, listed in the 202
 * and on the finished check with a REQUEST_CORRECTED warning, and the repaired request still finds the
 * sandbox member (who is matched on the member id, the upper-cased last name and the date of birth).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ERROR_CATALOG } from '../../src/checks/error-catalog.ts';
import { submitCheck } from '../../src/checks/submit.ts';
import { member } from '../helpers/members.ts';
import { deref } from '../helpers/openapi.ts';
import {
  client,
  sandboxRequest,
  startTestService,
  submitAndWait,
  type TestService,
  waitForResult,
} from '../helpers/service.ts';

const JANE = member('SBX1000001');
let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.stop());

/** Submits, then reads the finished check; returns the 202 body and the result. */
const run = (body: object) => submitAndWait(client(svc.url, svc.apiKey), body);

async function storedRequest(id: string) {
  const { rows } = await svc.service.store.db.query<{ request: any; request_corrections: any }>(
    'SELECT request, request_corrections FROM checks WHERE id = $1',
    [id],
  );
  return rows[0]!;
}

function assertCorrected(
  { accepted, result }: Awaited<ReturnType<typeof run>>,
  expected: { field: string; code: string }[],
) {
  const shape = (list: any[]) => list.map(({ field, code }) => ({ field, code }));
  assert.deepEqual(shape(accepted.requestCorrections), expected);
  assert.deepEqual(result.requestCorrections, accepted.requestCorrections);
  for (const c of result.requestCorrections) {
    assert.deepEqual(Object.keys(c), ['field', 'code', 'description']);
    assert.ok(c.description.length > 10);
  }
  const warning = result.warnings.find((w: any) => w.code === 'REQUEST_CORRECTED');
  assert.ok(warning, 'a REQUEST_CORRECTED warning');
  assert.match(warning.description, new RegExp(`${expected.length} change`));
}

test('a request that needs no repair is answered as before: no requestCorrections, no warning', async () => {
  const { accepted, result } = await run(sandboxRequest(JANE));
  assert.deepEqual(Object.keys(accepted).sort(), ['id', 'status']);
  assert.equal(result.status, 'COMPLETED');
  assert.equal(result.requestCorrections, undefined);
  assert.ok(!result.warnings.some((w: any) => w.code === 'REQUEST_CORRECTED'));
});

test('diacritics folded: Dóe finds DOE, and the stored request is the one sent', async () => {
  const ran = await run(sandboxRequest({ ...JANE, firstName: 'Jáne', lastName: 'Dóe' }));
  assert.equal(ran.result.status, 'COMPLETED');
  assertCorrected(ran, [
    { field: 'subscriber.lastName', code: 'NAME_DIACRITICS_FOLDED' },
    { field: 'subscriber.firstName', code: 'NAME_DIACRITICS_FOLDED' },
  ]);
  const stored = await storedRequest(ran.accepted.id);
  assert.equal(stored.request.subscriber.lastName, 'DOE');
  assert.equal(stored.request.subscriber.firstName, 'JANE');
  assert.deepEqual(stored.request_corrections, ran.result.requestCorrections);
  assert.equal(ran.result.subscriber.lastName, 'DOE');
});

test('apostrophes and periods removed: a stray period after the last name still finds the member', async () => {
  const ran = await run(sandboxRequest({ ...JANE, lastName: 'Doe.' }));
  assert.equal(ran.result.status, 'COMPLETED');
  assertCorrected(ran, [{ field: 'subscriber.lastName', code: 'NAME_PUNCTUATION_REMOVED' }]);
});

test('doubled and edge spaces removed', async () => {
  const ran = await run(sandboxRequest({ ...JANE, firstName: ' Jane  ', lastName: 'Doe  ' }));
  assert.equal(ran.result.status, 'COMPLETED');
  assertCorrected(ran, [
    { field: 'subscriber.lastName', code: 'NAME_SPACES_REMOVED' },
    { field: 'subscriber.firstName', code: 'NAME_SPACES_REMOVED' },
  ]);
});

test('a suffix in the last name moves to subscriber.suffix (NM107): DOE JR finds DOE', async () => {
  const ran = await run(sandboxRequest({ ...JANE, lastName: 'Doe, Jr.' }));
  assert.equal(ran.result.status, 'COMPLETED');
  assertCorrected(ran, [{ field: 'subscriber.lastName', code: 'NAME_SUFFIX_MOVED' }]);
  const stored = await storedRequest(ran.accepted.id);
  assert.equal(stored.request.subscriber.lastName, 'Doe');
  assert.equal(stored.request.subscriber.suffix, 'JR');
});

test('names longer than the 270 allows are cut to the element length', async () => {
  const ran = await run(sandboxRequest({ ...JANE, firstName: `${JANE.firstName}${'A'.repeat(40)}` }));
  assert.equal(ran.result.status, 'COMPLETED');
  assertCorrected(ran, [{ field: 'subscriber.firstName', code: 'TRIMMED_TO_MAX_LENGTH' }]);
  assert.equal((await storedRequest(ran.accepted.id)).request.subscriber.firstName.length, 35);
});

test('spaces and dashes removed from the member id: SBX-100 0001 finds SBX1000001', async () => {
  const ran = await run(sandboxRequest({ ...JANE, memberId: 'SBX-100 0001' }));
  assert.equal(ran.result.status, 'COMPLETED');
  assertCorrected(ran, [{ field: 'subscriber.memberId', code: 'MEMBER_ID_SEPARATORS_REMOVED' }]);
  assert.equal(ran.result.subscriber.memberId, JANE.memberId);
});

/** JANE's date of birth written YYYY-MM-DD. */
const dashed = (d: string) => `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6)}`;

test('dates written YYYY-MM-DD are accepted and normalised', async () => {
  const dob = dashed(JANE.dateOfBirth);
  const ran = await run(
    sandboxRequest({ ...JANE, dateOfBirth: dob }, { encounter: { dateOfService: '2026-03-01' } }),
  );
  assert.equal(ran.result.status, 'COMPLETED');
  assertCorrected(ran, [
    { field: 'subscriber.dateOfBirth', code: 'DATE_REFORMATTED' },
    { field: 'encounter.dateOfService', code: 'DATE_REFORMATTED' },
  ]);
  const stored = await storedRequest(ran.accepted.id);
  assert.equal(stored.request.subscriber.dateOfBirth, JANE.dateOfBirth);
  assert.equal(stored.request.encounter.dateOfService, '20260301');
});

test('a repaired request that still fails carries its corrections next to the error and its resolutions', async () => {
  const ran = await run(sandboxRequest({ ...JANE, lastName: 'Smíth' }));
  assert.equal(ran.result.status, 'FAILED');
  assertCorrected(ran, [{ field: 'subscriber.lastName', code: 'NAME_DIACRITICS_FOLDED' }]);
  const error = ran.result.errors[0];
  assert.equal(error.code, '73');
  assert.equal(error.description, 'Invalid/Missing subscriber/insured name');
  assert.equal(error.possibleResolutions, ERROR_CATALOG.get('73')!.possibleResolutions);
});

test('neither the values sent nor the repaired ones reach a log line', async () => {
  const before = svc.logs.lines.length;
  const spaced = `${JANE.memberId.slice(0, 3)} ${JANE.memberId.slice(3)}`;
  const dob = dashed(JANE.dateOfBirth);
  await run(sandboxRequest({ ...JANE, memberId: spaced, lastName: 'Dœe Jr', dateOfBirth: dob }));
  const logged = svc.logs.lines.slice(before).join('\n');
  assert.ok(logged.length > 0, 'the check was logged');
  for (const value of [spaced, JANE.memberId, 'Dœe', 'DOEE', 'Jr', dob, JANE.dateOfBirth])
    assert.ok(!logged.includes(value), `a log line holds ${value}`);
});

test('the OpenAPI document describes the repairs and the requestCorrections of the 202 and of the result', async () => {
  const doc = (await client(svc.url).get('/openapi.json')).body;
  const submit = doc.paths['/api/eligibility'].post;
  assert.match(submit.description, /Request repair/);
  assert.match(submit.description, /stored request is the one sent to the payer/);
  const accepted = deref(doc, submit.responses['202'].content['application/json'].schema);
  assert.deepEqual(Object.keys(deref(doc, accepted.properties.requestCorrections.items).properties), [
    'field',
    'code',
    'description',
  ]);
  const status = deref(
    doc,
    doc.paths['/api/eligibility/{id}/status'].get.responses['200'].content['application/json'].schema,
  );
  assert.ok(status.properties.requestCorrections, 'the result schema has requestCorrections');
  const request = deref(doc, submit.requestBody.content['application/json'].schema);
  assert.ok(deref(doc, request.properties.subscriber).properties.suffix);
});

test('a payer whose member ids have dashes keeps them: nothing is corrected', async () => {
  const body = sandboxRequest({ ...JANE, memberId: 'ABC-123-456' });
  const keeping = (id: string) => ({ tradingPartnerServiceId: id, keepMemberIdSeparators: true });
  const kept = await submitCheck(svc.service.store.db, svc.organizationId, body, {
    payers: { resolvePayer: keeping },
  });
  assert.ok(kept.ok && 'corrections' in kept);
  assert.deepEqual(kept.corrections, []);
  const stored = await storedRequest(kept.id);
  assert.equal(stored.request.subscriber.memberId, 'ABC-123-456');
  assert.equal(stored.request_corrections, null);
  const stripped = await submitCheck(svc.service.store.db, svc.organizationId, body, {
    payers: { resolvePayer: (id) => (id === 'SANDBOX' ? undefined : keeping(id)) },
  });
  assert.ok(stripped.ok && 'corrections' in stripped);
  assert.deepEqual(
    stripped.corrections.map((c) => c.code),
    ['MEMBER_ID_SEPARATORS_REMOVED'],
  );
});

test('a batch item is repaired like a single submit, and its check carries the corrections', async () => {
  const c = client(svc.url, svc.apiKey);
  const res = await c.post('/api/eligibility/batch', {
    checks: [sandboxRequest({ ...JANE, lastName: 'Dóe' }), sandboxRequest(JANE)],
  });
  assert.ok(res.status === 202 || res.status === 200, JSON.stringify(res.body));
  const [repaired, plain] = res.body.items.map((i: { id: string }) => i.id);
  const result = await waitForResult(c, repaired, 60_000);
  assert.equal(result.status, 'COMPLETED');
  assert.deepEqual(
    result.requestCorrections.map((x: any) => `${x.field} ${x.code}`),
    ['subscriber.lastName NAME_DIACRITICS_FOLDED'],
  );
  assert.ok(result.warnings.some((w: any) => w.code === 'REQUEST_CORRECTED'));
  assert.equal((await storedRequest(plain)).request_corrections, null);
});
