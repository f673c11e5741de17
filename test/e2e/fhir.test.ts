/**
 * The FHIR face end to end (issue 30), on the store the run picks (PGlite, or PostgreSQL with DATABASE_URL):
 * a FHIR client submits a CoverageEligibilityRequest, polls the search until the response is there, and reads
 * it, for the sandbox members of Tables A and B, an inactive plan, an AAA failure and an unknown payer (SH01).
 * Every resource the service returns is checked by Medplum's validator (test/helpers/fhir.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MedplumClient } from '@medplum/core';
import type {
  Bundle,
  CoverageEligibilityRequest,
  CoverageEligibilityResponse,
  CoverageEligibilityResponseInsuranceItem,
} from '@medplum/fhirtypes';
import { setReuseWithinHours } from '../../src/tenancy/organizations.ts';
import { setWebhookUrl } from '../../src/webhooks/settings.ts';
import { eventually } from '../helpers/eventually.ts';
import { assertValidFhir, eligibilityRequestFor, hl7ExampleRequest } from '../helpers/fhir.ts';
import { member } from '../helpers/members.ts';
import { Receiver } from '../helpers/receiver.ts';
import { client, startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.stop());

const FHIR = '/fhir/R4';

interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

async function fhir<T = any>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer<T>> {
  const res = await fetch(svc.url + FHIR + path, {
    method,
    headers: {
      authorization: `Key ${svc.apiKey}`,
      accept: 'application/fhir+json',
      ...(body !== undefined ? { 'content-type': 'application/fhir+json' } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  assert.match(res.headers.get('content-type') ?? '', /^application\/fhir\+json/, text);
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** Submits, checks the 201 and the stored request, and polls the search until the response is there. */
async function submitAndRead(request: CoverageEligibilityRequest): Promise<CoverageEligibilityResponse> {
  const created = await fhir<CoverageEligibilityRequest>('POST', '/CoverageEligibilityRequest', request);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assertValidFhir(created.body, 'CoverageEligibilityRequest');
  const id = created.body.id!;
  assert.equal(created.headers.get('location'), `${svc.url}${FHIR}/CoverageEligibilityRequest/${id}`);
  const bundle = await eventually(
    async () => {
      const found = await fhir<Bundle>(
        'GET',
        `/CoverageEligibilityResponse?request=CoverageEligibilityRequest/${id}`,
      );
      assert.equal(found.status, 200);
      assertValidFhir(found.body, 'Bundle');
      if (!found.body.entry?.length) throw new Error('no response yet');
      return found.body;
    },
    { timeoutMs: 20_000, intervalMs: 50, what: `the response to ${id}` },
  );
  assert.equal(bundle.type, 'searchset');
  assert.equal(bundle.entry!.length, 1);
  const response = bundle.entry![0]!.resource as CoverageEligibilityResponse;
  assertValidFhir(response, 'CoverageEligibilityResponse');
  assert.equal(bundle.entry![0]!.fullUrl, `${svc.url}${FHIR}/CoverageEligibilityResponse/${id}`);
  const read = await fhir('GET', `/CoverageEligibilityResponse/${id}`);
  assert.equal(read.status, 200);
  assert.deepEqual(read.body, response);
  assert.equal(response.request.reference, `CoverageEligibilityRequest/${id}`);
  return response;
}

const items = (r: CoverageEligibilityResponse) => r.insurance?.[0]?.item ?? [];
const individual = (r: CoverageEligibilityResponse, name: string) =>
  items(r).find((i) => i.name === name && i.unit?.coding?.[0]?.code === 'individual');
const benefit = (item: CoverageEligibilityResponseInsuranceItem | undefined, code: string) =>
  item?.benefit?.find((b) => b.type.coding?.some((c) => c.code === code));

describe('the capability statement', () => {
  test('GET /metadata: FHIR 4.0.1, the resources and interactions, the security note; valid', async () => {
    const res = await fetch(`${svc.url}${FHIR}/metadata`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/fhir\+json/);
    const cs = await res.json();
    assertValidFhir(cs, 'CapabilityStatement');
    assert.equal(cs.fhirVersion, '4.0.1');
    const resources = Object.fromEntries(
      cs.rest[0].resource.map((r: any) => [r.type, r.interaction.map((i: any) => i.code)]),
    );
    assert.deepEqual(resources, {
      CoverageEligibilityRequest: ['create', 'read'],
      CoverageEligibilityResponse: ['read', 'search-type'],
    });
    assert.match(cs.rest[0].security.description, /Bearer/);
  });
});

describe('round trips for the sandbox members', () => {
  test('the HL7 R4 example request (SBX1000001): 201, then Table A exactly', async () => {
    const example = hl7ExampleRequest();
    const jane = member('SBX1000001');
    // The fixture names the sandbox member; the member table is the source of truth.
    const patient = example.contained?.find((r) => r.resourceType === 'Patient') as any;
    assert.deepEqual(
      [patient.name[0].family, patient.name[0].given[0], patient.birthDate.replaceAll('-', '')],
      [jane.lastName, jane.firstName, jane.dateOfBirth],
    );
    assertValidFhir(example, 'CoverageEligibilityRequest');
    const response = await submitAndRead(example);
    assert.equal(response.outcome, 'complete');
    assert.match(response.disposition ?? '', /active/i);
    const insurance = response.insurance![0]!;
    assert.equal(insurance.inforce, true);
    assert.deepEqual(insurance.benefitPeriod, { start: '2026-01-01', end: '2026-12-31' });
    const mh = individual(response, 'Mental Health');
    assert.deepEqual(mh?.category?.coding?.[0], {
      system: 'https://codesystem.x12.org/005010/1365',
      code: 'MH',
      display: mh?.category?.coding?.[0]?.display,
    });
    assert.equal(mh?.network?.coding?.[0]?.code, 'in');
    assert.equal(mh?.authorizationRequired, true);
    assert.deepEqual(benefit(mh, 'copay')?.allowedMoney, { value: 25, currency: 'USD' });
    assert.deepEqual(benefit(mh, 'deductible')?.allowedMoney, { value: 1500, currency: 'USD' });
    assert.deepEqual(benefit(mh, 'deductible')?.usedMoney, { value: 1000, currency: 'USD' });
    assert.deepEqual(benefit(mh, 'G')?.allowedMoney, { value: 5000, currency: 'USD' });
    assert.deepEqual(benefit(mh, 'G')?.usedMoney, { value: 1800, currency: 'USD' });
    // Table A, every row: copay, coinsurance (percent), visits (limit and used), authorization.
    const TABLE_A: [string, number | null, number | null, number | null, number | null, boolean][] = [
      ['Preventive Nutrition', 0, null, 6, 1, false],
      ['Medical Nutrition', 20, null, 12, 0, false],
      ['Outpatient Physical Therapy', 30, null, 20, 4, false],
      ['Mental Health', 25, null, null, null, true],
      ['Occupational Therapy', null, 20, 20, 2, false],
      ['Speech Therapy', null, 20, 20, 0, true],
      ['Chiropractic', 15, null, 12, 5, false],
    ];
    for (const [name, copay, percent, limit, used, auth] of TABLE_A) {
      const item = individual(response, name);
      assert.ok(item, name);
      assert.equal(benefit(item, 'copay')?.allowedMoney?.value ?? null, copay, name);
      assert.equal(benefit(item, 'copay-percent')?.allowedUnsignedInt ?? null, percent, name);
      assert.equal(benefit(item, 'visit')?.allowedUnsignedInt ?? null, limit, name);
      assert.equal(benefit(item, 'visit')?.usedUnsignedInt ?? null, used, name);
      assert.equal(item.authorizationRequired, auth, name);
      assert.equal(item.excluded, undefined, name);
    }
    const family = items(response).find(
      (i) => i.name === 'Mental Health' && i.unit?.coding?.[0]?.code === 'family',
    );
    assert.deepEqual(benefit(family, 'deductible')?.allowedMoney, { value: 3000, currency: 'USD' });
    assert.deepEqual(benefit(family, 'deductible')?.usedMoney, { value: 1000, currency: 'USD' });
    const confidence = response.extension?.find(
      (e) => e.url === 'urn:eligibility-service:extension:confidence',
    );
    assert.equal(typeof confidence?.valueDecimal, 'number');
    // The stored request reads back as it was created.
    const stored = await fhir('GET', `/CoverageEligibilityRequest/${response.id}`);
    assert.equal(stored.status, 200);
    assertValidFhir(stored.body, 'CoverageEligibilityRequest');
  });

  test('Table B (SBX1000002): HMO copays, Chiropractic excluded, no deductible', async () => {
    const response = await submitAndRead(eligibilityRequestFor(member('SBX1000002')));
    assert.equal(response.outcome, 'complete');
    assert.equal(response.insurance![0]!.inforce, true);
    const chiro = individual(response, 'Chiropractic');
    assert.equal(chiro?.excluded, true);
    assert.equal(chiro?.benefit, undefined);
    const pt = individual(response, 'Outpatient Physical Therapy');
    assert.deepEqual(benefit(pt, 'copay')?.allowedMoney, { value: 20, currency: 'USD' });
    assert.equal(pt?.authorizationRequired, true);
    assert.equal(benefit(pt, 'deductible'), undefined);
    assert.deepEqual(benefit(pt, 'G')?.allowedMoney, { value: 3000, currency: 'USD' });
    assert.deepEqual(benefit(pt, 'G')?.usedMoney, { value: 500, currency: 'USD' });
  });

  test('an inactive plan (SBX1000003): complete, inforce false, no items', async () => {
    const response = await submitAndRead(eligibilityRequestFor(member('SBX1000003')));
    assert.equal(response.outcome, 'complete');
    assert.equal(response.insurance![0]!.inforce, false);
    assert.equal(response.insurance![0]!.item, undefined);
  });

  test('an AAA failure (SBX1000067): outcome error, error 67 with its description', async () => {
    const response = await submitAndRead(eligibilityRequestFor(member('SBX1000067')));
    assert.equal(response.outcome, 'error');
    assert.equal(response.insurance, undefined);
    assert.deepEqual(response.error?.[0]?.code.coding?.[0], {
      system: 'https://codesystem.x12.org/005010/901',
      code: '67',
      display: 'Patient not found',
    });
  });

  test('an insurer the directory does not know: outcome error, SH01', async () => {
    const response = await submitAndRead(eligibilityRequestFor(member('SBX1000001'), { payerId: 'NOPE' }));
    assert.equal(response.outcome, 'error');
    assert.deepEqual(response.error?.[0]?.code.coding?.[0], {
      system: 'urn:eligibility-service:check-error',
      code: 'SH01',
      display: 'Payer not supported',
    });
  });

  test('while the check is in progress the search is an empty searchset, and the read a 404', async () => {
    // SBX1000009 never answers: its check stays IN_PROGRESS for the payer timeouts.
    const created = await fhir(
      'POST',
      '/CoverageEligibilityRequest',
      eligibilityRequestFor(member('SBX1000009')),
    );
    assert.equal(created.status, 201);
    const found = await fhir(
      'GET',
      `/CoverageEligibilityResponse?request=CoverageEligibilityRequest/${created.body.id}`,
    );
    assert.equal(found.status, 200);
    assertValidFhir(found.body, 'Bundle');
    assert.deepEqual([found.body.type, found.body.total, found.body.entry ?? []], ['searchset', 0, []]);
    const read = await fhir('GET', `/CoverageEligibilityResponse/${created.body.id}`);
    assert.equal(read.status, 404);
    assertValidFhir(read.body, 'OperationOutcome');
  });

  test('a FHIR client library (MedplumClient, a Bearer key) submits, searches and reads', async () => {
    const medplum = new MedplumClient({ baseUrl: svc.url, fhirUrlPath: 'fhir/R4', fetch });
    medplum.setAccessToken(svc.apiKey);
    const created = await medplum.createResource(
      eligibilityRequestFor(member('SBX1000002'), { serviceTypes: ['MH'] }),
    );
    assertValidFhir(created, 'CoverageEligibilityRequest');
    assert.equal(created.item?.[0]?.category?.coding?.[0]?.code, 'MH');
    const response = await eventually(
      async () => {
        const bundle = await medplum.search(
          'CoverageEligibilityResponse',
          { request: `CoverageEligibilityRequest/${created.id}` },
          { cache: 'no-cache' },
        );
        const found = bundle.entry?.[0]?.resource;
        if (!found) throw new Error('no response yet');
        return found;
      },
      { timeoutMs: 20_000, intervalMs: 50, what: 'the response through MedplumClient' },
    );
    assertValidFhir(response, 'CoverageEligibilityResponse');
    const read = await medplum.readResource('CoverageEligibilityResponse', created.id!, {
      cache: 'no-cache',
    });
    assert.equal(read.outcome, 'complete');
    assert.deepEqual(benefit(individual(read, 'Mental Health'), 'copay')?.allowedMoney, {
      value: 20,
      currency: 'USD',
    });
  });
});

describe('a FHIR request is an ordinary check', () => {
  test('its completion webhook is sent, the JSON API reads it, and a repeat is answered by reuse', async () => {
    const receiver = await new Receiver().start();
    const db = svc.service.store.db;
    try {
      assert.ok((await setWebhookUrl(db, svc.organizationId, receiver.url, { allowPrivate: true })).ok);
      await setReuseWithinHours(db, svc.organizationId, 12);
      const request = eligibilityRequestFor(member('SBX1000004'));
      const first = await submitAndRead(request);
      const [delivery] = await receiver.waitFor(1);
      assert.equal(JSON.parse(delivery!.body).id, first.id);
      const status = await client(svc.url, svc.apiKey).get(`/api/eligibility/${first.id}/status`);
      assert.equal(status.body.status, 'COMPLETED');
      const second = await submitAndRead(request);
      assert.notEqual(second.id, first.id);
      const reused = await client(svc.url, svc.apiKey).get(`/api/eligibility/${second.id}/status`);
      assert.equal(reused.body.meta.reusedFrom.id, first.id);
      assert.deepEqual(second.insurance, first.insurance, 'the same answer, without asking the payer again');
    } finally {
      await setReuseWithinHours(db, svc.organizationId, null);
      await setWebhookUrl(db, svc.organizationId, null, { allowPrivate: true });
      await receiver.stop();
    }
  });
});
