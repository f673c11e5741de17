/**
 * Every refusal of the FHIR face (issue 30) is an OperationOutcome that Medplum's validator accepts, with
 * the status a FHIR server answers, the issue type, and for a resource that cannot be checked the element
 * path (`expression`) of what was wrong; never a value of the request (no PHI), never a stack trace, never
 * the `{code, message}` envelope of /api.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertValidFhir, eligibilityRequestFor } from '../helpers/fhir.ts';
import { member } from '../helpers/members.ts';
import { assertNothingLeaks } from '../helpers/refusal-bodies.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
before(async () => {
  svc = await startTestService({ roles: { api: true, worker: false } });
});
after(() => svc.stop());

const JANE = member('SBX1000001');
const PHI = [JANE.memberId, JANE.firstName, JANE.lastName, JANE.dateOfBirth, '1980-01-15'];

async function send(
  method: string,
  path: string,
  options: { body?: unknown; type?: string; auth?: string | null } = {},
) {
  const body =
    options.body === undefined
      ? undefined
      : typeof options.body === 'string'
        ? options.body
        : JSON.stringify(options.body);
  const res = await fetch(`${svc.url}/fhir/R4${path}`, {
    method,
    headers: {
      ...(options.auth === null ? {} : { authorization: options.auth ?? `Key ${svc.apiKey}` }),
      ...(body !== undefined ? { 'content-type': options.type ?? 'application/fhir+json' } : {}),
    },
    body,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
}

/** The answer is an OperationOutcome of `status` whose issues have `codes` (and `expressions`, in order). */
function assertOutcome(
  answer: Awaited<ReturnType<typeof send>>,
  status: number,
  codes: string[],
  expressions?: (string | undefined)[],
) {
  assert.equal(answer.status, status, answer.text);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/fhir\+json/);
  assertValidFhir(answer.body, 'OperationOutcome');
  assert.deepEqual(
    answer.body.issue.map((i: any) => i.code),
    codes,
    answer.text,
  );
  if (expressions)
    assert.deepEqual(
      answer.body.issue.map((i: any) => i.expression?.[0]),
      expressions,
      answer.text,
    );
  assertNothingLeaks(answer.text, PHI);
}

const valid = () => eligibilityRequestFor(JANE);
const contained = (request: any, id: string) => request.contained.find((r: any) => r.id === id);

test('401: no key, an unknown key, another scheme; with WWW-Authenticate', async () => {
  for (const auth of [null, 'Key elig_test_nope', 'Basic abc']) {
    const answer = await send('POST', '/CoverageEligibilityRequest', { body: valid(), auth });
    assertOutcome(answer, 401, ['login']);
    assert.match(answer.headers.get('www-authenticate') ?? '', /Bearer/);
  }
  assertOutcome(await send('GET', '/CoverageEligibilityResponse', { auth: null }), 401, ['login']);
});

test('Bearer carries the key on /fhir, and only there', async () => {
  const fhirAnswer = await send('GET', '/CoverageEligibilityResponse', { auth: `Bearer ${svc.apiKey}` });
  assert.equal(fhirAnswer.status, 200, fhirAnswer.text);
  assertValidFhir(fhirAnswer.body, 'Bundle');
  const api = await fetch(`${svc.url}/api/payers`, { headers: { authorization: `Bearer ${svc.apiKey}` } });
  assert.equal(api.status, 401);
});

test('400: not JSON, empty, not a CoverageEligibilityRequest', async () => {
  assertOutcome(await send('POST', '/CoverageEligibilityRequest', { body: '{"resourceType":' }), 400, [
    'structure',
  ]);
  assertOutcome(
    await send('POST', '/CoverageEligibilityRequest', { body: '', type: 'application/json' }),
    400,
    ['structure'],
  );
  assertOutcome(
    await send('POST', '/CoverageEligibilityRequest', { body: { resourceType: 'Patient' } }),
    400,
    ['structure'],
  );
  assertOutcome(await send('GET', '/CoverageEligibilityResponse?_count=500'), 400, ['invalid'], ['_count']);
});

test('415: a body that is not JSON; 413: a body over the limit', async () => {
  assertOutcome(
    await send('POST', '/CoverageEligibilityRequest', { body: '<x/>', type: 'application/fhir+xml' }),
    415,
    ['not-supported'],
  );
  assertOutcome(await send('POST', '/CoverageEligibilityRequest', { body: 'x'.repeat(70_000) }), 413, [
    'too-costly',
  ]);
});

test('404 for an unknown path; 405 with Allow for a known path asked with another method', async () => {
  assertOutcome(await send('GET', '/Patient/x'), 404, ['not-found']);
  const wrong = await send('DELETE', '/CoverageEligibilityRequest');
  assertOutcome(wrong, 405, ['not-supported']);
  assert.equal(wrong.headers.get('allow'), 'POST');
  assertOutcome(await send('GET', '/CoverageEligibilityRequest/%ZZ'), 400, ['structure']);
});

test('422: what is missing, with the element path of each', async () => {
  const request: any = valid();
  delete contained(request, 'pat').birthDate;
  delete contained(request, 'cov').subscriberId;
  contained(request, 'clinic').identifier = [];
  contained(request, 'payer').identifier[0].type.coding[0].code = 'XX';
  assertOutcome(
    await send('POST', '/CoverageEligibilityRequest', { body: request }),
    422,
    ['required', 'required', 'required', 'required'],
    [
      'CoverageEligibilityRequest.contained[0].birthDate',
      'CoverageEligibilityRequest.contained[3].subscriberId',
      'CoverageEligibilityRequest.contained[1].identifier',
      'CoverageEligibilityRequest.contained[2].identifier',
    ],
  );
});

test('422: what the intake refuses, named by the FHIR element it was read from', async () => {
  const request: any = valid();
  contained(request, 'clinic').identifier[0].value = '1234567890'; // a bad check digit
  contained(request, 'pat').birthDate = '2999-01-01';
  request.item = [
    { category: { coding: [{ system: 'https://codesystem.x12.org/005010/1365', code: 'ZZ' }] } },
  ];
  const answer = await send('POST', '/CoverageEligibilityRequest', { body: request });
  assert.equal(answer.status, 422, answer.text);
  const paths = answer.body.issue.map((i: any) => i.expression[0]).sort();
  assert.deepEqual(paths, [
    'CoverageEligibilityRequest.contained[0].birthDate',
    'CoverageEligibilityRequest.contained[1].identifier[0].value',
    'CoverageEligibilityRequest.item[0].category',
  ]);
  assertOutcome(answer, 422, ['value', 'value', 'value']);
});

test('422: references outside the request, a category outside X12, a period, a dependent patient', async () => {
  const outside: any = { ...valid(), patient: { reference: 'Patient/pat1' } };
  assertOutcome(
    await send('POST', '/CoverageEligibilityRequest', { body: outside }),
    422,
    ['not-supported'],
    ['CoverageEligibilityRequest.patient.reference'],
  );
  const category: any = {
    ...valid(),
    item: [
      {
        category: {
          coding: [{ system: 'http://terminology.hl7.org/CodeSystem/ex-benefitcategory', code: '30' }],
        },
      },
    ],
  };
  assertOutcome(
    await send('POST', '/CoverageEligibilityRequest', { body: category }),
    422,
    ['code-invalid'],
    ['CoverageEligibilityRequest.item[0].category'],
  );
  const period: any = { ...valid(), servicedPeriod: { start: '2026-05-01', end: '2026-05-31' } };
  assertOutcome(
    await send('POST', '/CoverageEligibilityRequest', { body: period }),
    422,
    ['not-supported'],
    ['CoverageEligibilityRequest.servicedPeriod'],
  );
  const dependent: any = valid();
  contained(dependent, 'cov').relationship.coding[0].code = 'child';
  assertOutcome(
    await send('POST', '/CoverageEligibilityRequest', { body: dependent }),
    422,
    ['not-supported'],
    ['CoverageEligibilityRequest.contained[3].relationship'],
  );
});

test('a provider and an insurer given inline by identifier are accepted', async () => {
  const request: any = valid();
  request.contained = request.contained.filter((r: any) => r.resourceType !== 'Organization');
  request.contained.find((r: any) => r.resourceType === 'Coverage').payor = [
    { display: 'Sandbox Health Plan' },
  ];
  request.provider = {
    identifier: { system: 'http://hl7.org/fhir/sid/us-npi', value: '1234567893' },
    display: 'Test Clinic',
  };
  request.insurer = {
    identifier: {
      type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'NIIP' }] },
      value: 'SANDBOX',
    },
  };
  assertValidFhir(request, 'CoverageEligibilityRequest');
  const answer = await send('POST', '/CoverageEligibilityRequest', { body: request });
  assert.equal(answer.status, 201, answer.text);
  assertValidFhir(answer.body, 'CoverageEligibilityRequest');
});

test("another organization's ids are 404s, exactly as unknown ones; an IN_PROGRESS response too", async () => {
  const created = await send('POST', '/CoverageEligibilityRequest', { body: valid() });
  assert.equal(created.status, 201, created.text);
  const id = created.body.id;
  const missing = `${id.slice(0, -1)}${id.endsWith('0') ? '1' : '0'}`;
  const read = await send('GET', `/CoverageEligibilityRequest/${missing}`);
  assertOutcome(read, 404, ['not-found']);
  // No worker runs here: the check is in progress and has no response yet.
  const response = await send('GET', `/CoverageEligibilityResponse/${id}`);
  assertOutcome(response, 404, ['not-found']);
  assert.deepEqual(response.body, (await send('GET', `/CoverageEligibilityResponse/${missing}`)).body);
});

test('429: over the key rate limit, an OperationOutcome `throttled` with Retry-After', async () => {
  const limited = await startTestService({
    roles: { api: true, worker: false },
    config: { rateLimitStatus: 1 },
  });
  try {
    const get = () =>
      fetch(`${limited.url}/fhir/R4/CoverageEligibilityResponse`, {
        headers: { authorization: `Bearer ${limited.apiKey}` },
      });
    let res = await get();
    for (let i = 0; i < 5 && res.status !== 429; i++) res = await get();
    assert.equal(res.status, 429);
    assert.ok(Number(res.headers.get('retry-after')) >= 1);
    const body = await res.json();
    assertValidFhir(body, 'OperationOutcome');
    assert.equal(body.issue[0].code, 'throttled');
  } finally {
    await limited.stop();
  }
});
