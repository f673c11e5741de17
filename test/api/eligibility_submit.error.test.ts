import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { member } from '../helpers/members.ts';
import { client, sandboxRequest, startTestService, type TestService } from '../helpers/service.ts';

const JANE = member('SBX1000001');
let svc: TestService;
before(async () => {
  svc = await startTestService({ roles: { api: true, worker: false } });
});
after(() => svc.stop());

async function submit(body: unknown, headers?: Record<string, string>) {
  return client(svc.url, svc.apiKey).post('/api/eligibility', body, headers);
}

function assertValidation(res: { status: number; body: any }, ...fields: string[]) {
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.equal(res.body.code, 'ValidationException');
  assert.deepEqual(Object.keys(res.body).sort(), ['code', 'message']);
  for (const f of fields)
    assert.ok(res.body.message.includes(f), `message should name ${f}: ${res.body.message}`);
}

test('missing required fields are each named', async () => {
  assertValidation(await submit({}), 'tradingPartnerServiceId', 'provider', 'subscriber');
  assertValidation(
    await submit({
      tradingPartnerServiceId: 'SANDBOX',
      provider: { npi: '1234567893', organizationName: 'X' },
      subscriber: {},
    }),
    'subscriber.memberId',
    'subscriber.firstName',
    'subscriber.lastName',
    'subscriber.dateOfBirth',
  );
});

test('NPI must be 10 digits with a valid check digit', async () => {
  assertValidation(
    await submit({ ...sandboxRequest(JANE), provider: { organizationName: 'X', npi: '123' } }),
    'provider.npi',
  );
  assertValidation(
    await submit({ ...sandboxRequest(JANE), provider: { organizationName: 'X', npi: '1234567890' } }),
    'provider.npi',
    'check digit',
  );
});

test('provider needs an organization name or a first and last name', async () => {
  assertValidation(
    await submit({ ...sandboxRequest(JANE), provider: { npi: '1234567893', firstName: 'Ann' } }),
    'provider',
  );
});

test('dates of birth must be real, past dates', async () => {
  for (const dob of ['19801315', '19800230', '1980-02-30', '30000101', '18000101']) {
    assertValidation(await submit(sandboxRequest({ ...JANE, dateOfBirth: dob })), 'subscriber.dateOfBirth');
  }
});

test('a date that cannot be repaired says the format expected, with an example', async () => {
  for (const dob of ['01/15/1980', '1980115', 19800115]) {
    assertValidation(
      await submit(sandboxRequest({ ...JANE, dateOfBirth: dob as string })),
      'subscriber.dateOfBirth must be a date written YYYYMMDD, e.g. 19800115',
    );
  }
  assertValidation(
    await submit(sandboxRequest(JANE, { encounter: { dateOfService: '2026-13-01' } })),
    'encounter.dateOfService is not a real date: must be a date written YYYYMMDD, e.g. 20260301',
  );
  assertValidation(
    await submit(sandboxRequest({ ...JANE, memberId: 'SBX#1000001' })),
    'subscriber.memberId must be the member id on the card: letters and digits (dashes allowed), e.g. ABC123456789',
  );
  assertValidation(
    await submit({ ...sandboxRequest(JANE), provider: { organizationName: 'X', npi: '12345' } }),
    'provider.npi must be the 10-digit NPI, e.g. 1234567893',
  );
  assertValidation(
    await submit(sandboxRequest(JANE, { encounter: { serviceTypeCodes: ['pt'] } })),
    'encounter.serviceTypeCodes[0] must be an X12 service type code: one or two capital letters or digits, e.g. 30 or PT',
  );
  assertValidation(
    await submit(sandboxRequest({ ...JANE, gender: 'X' } as typeof JANE)),
    'subscriber.gender must be M, F or U',
  );
});

test('encounter service type codes must be known X12 codes and dateOfService real', async () => {
  assertValidation(
    await submit(sandboxRequest(JANE, { encounter: { serviceTypeCodes: ['ZZ'] } })),
    'encounter.serviceTypeCodes[0]',
  );
  assertValidation(
    await submit(sandboxRequest(JANE, { encounter: { serviceTypeCodes: ['30', 'pt'] } })),
    'encounter.serviceTypeCodes[1]',
  );
  assertValidation(
    await submit(sandboxRequest(JANE, { encounter: { dateOfService: '20260231' } })),
    'encounter.dateOfService',
  );
});

test('unknown fields are refused, not silently ignored', async () => {
  assertValidation(
    await submit({ ...sandboxRequest(JANE), webhookUrl: 'https://example.com' }),
    '`webhookUrl` is not a known field of the request',
  );
});

test('an unknown field names its object and the field it probably meant, never "schema is false"', async () => {
  const res = await submit({
    ...sandboxRequest(JANE),
    subscriber: { ...sandboxRequest(JANE).subscriber, memberID: 'x' },
  });
  assertValidation(res, '`memberID` is not a known field of subscriber (did you mean `memberId`?)');
  assert.doesNotMatch(res.body.message, /schema is false/);
  assertValidation(
    await submit({
      ...sandboxRequest(JANE),
      provider: { organizationName: 'X', npi: '1234567893', nip: '1' },
    }),
    '`nip` is not a known field of provider (did you mean `npi`?)',
  );
  assertValidation(
    await submit({ ...sandboxRequest(JANE), tradingPartnerServiceID: 'SANDBOX' }),
    '`tradingPartnerServiceID` is not a known field of the request (did you mean `tradingPartnerServiceId`?)',
  );
});

test('X12 delimiter characters in names are refused', async () => {
  assertValidation(await submit(sandboxRequest({ ...JANE, lastName: 'DOE~ISA*' })), 'subscriber.lastName');
});

test('wrong types name the field', async () => {
  assertValidation(
    await submit({ ...sandboxRequest(JANE), tradingPartnerServiceId: 42 }),
    'tradingPartnerServiceId',
  );
  assertValidation(await submit([]), 'body');
});

test('messages never echo submitted values', async () => {
  const res = await submit(sandboxRequest({ ...JANE, memberId: 'SECRET!VALUE', dateOfBirth: '19991399' }));
  assertValidation(res, 'subscriber.memberId', 'subscriber.dateOfBirth');
  assert.ok(!res.body.message.includes('SECRET'));
  assert.ok(!res.body.message.includes('19991399'));
});

test('malformed JSON and an empty body answer 400, another content type 415, with the envelope', async () => {
  assertValidation(await submit('{"tradingPartnerServiceId": '));
  const empty = await fetch(`${svc.url}/api/eligibility`, {
    method: 'POST',
    headers: { authorization: `Key ${svc.apiKey}`, 'content-type': 'application/json' },
  });
  assert.equal(empty.status, 400);
  assert.equal((await empty.json()).code, 'ValidationException');
  const text = await fetch(`${svc.url}/api/eligibility`, {
    method: 'POST',
    headers: { authorization: `Key ${svc.apiKey}`, 'content-type': 'text/plain' },
    body: JSON.stringify(sandboxRequest(JANE)),
  });
  assert.equal(text.status, 415);
  assert.deepEqual(await text.json(), {
    code: 'ValidationException',
    message: 'Send the body as JSON with Content-Type: application/json.',
  });
  const xml = await fetch(`${svc.url}/api/eligibility`, {
    method: 'POST',
    headers: { authorization: `Key ${svc.apiKey}`, 'content-type': 'application/xml' },
    body: '<check/>',
  });
  assert.equal(xml.status, 415);
  const charset = await fetch(`${svc.url}/api/eligibility`, {
    method: 'POST',
    headers: { authorization: `Key ${svc.apiKey}`, 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(sandboxRequest(JANE)),
  });
  assert.equal(charset.status, 202, 'JSON with a charset parameter is JSON');
});

test('a body without a content type answers 415, and an unauthenticated one 401 before that', async () => {
  const bare = await fetch(`${svc.url}/api/eligibility`, {
    method: 'POST',
    headers: { authorization: `Key ${svc.apiKey}`, 'content-type': '' },
    body: JSON.stringify(sandboxRequest(JANE)),
  });
  assert.equal(bare.status, 415);
  assert.equal((await bare.json()).code, 'ValidationException');
  const anonymous = await fetch(`${svc.url}/api/eligibility`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: 'x',
  });
  assert.equal(anonymous.status, 401);
});

test('a body over 64 KB answers 413 with the envelope', async () => {
  const res = await submit({ ...sandboxRequest(JANE), padding: 'x'.repeat(70 * 1024) });
  assert.equal(res.status, 413);
  assert.equal(res.body.code, 'ValidationException');
  assert.match(res.body.message, /65536 bytes/);
});

test('unknown routes answer 404 ResourceNotFoundException', async () => {
  const res = await client(svc.url, svc.apiKey).get('/api/nothing');
  assert.equal(res.status, 404);
  assert.equal(res.body.code, 'ResourceNotFoundException');
});
