// The OpenAPI document, checked by tools no one here wrote: a maintained validator says it is valid OpenAPI
// 3.1, openapi-typescript turns it into types that a small program type-checks against, and the running app
// agrees with it: every /api (and /operator) route is documented, and every documented operation answers
// sample requests only with status codes it documents.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { API_DOC, apiDoc } from '../../scripts/api-doc.ts';
import { EXAMPLE_SCENARIOS } from '../../src/api/openapi-examples.ts';
import { addPayerCallStats, emptyCounts } from '../../src/store/payer-call-stats.ts';
import { createApiKey } from '../../src/tenancy/api-keys.ts';
import { eligibilityRequestFor } from '../helpers/fhir.ts';
import { member } from '../helpers/members.ts';
import { dayFromToday, monitorBody } from '../helpers/monitors.ts';
import { deref } from '../helpers/openapi.ts';
import { servedRoutes } from '../helpers/route-table.ts';
import { client, startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
let doc: any;
/** The operator routes (/operator/...) answer only with it; without one they answer 404. */
const OPERATOR_TOKEN = 'operator-token-of-the-openapi-test';
before(async () => {
  svc = await startTestService({
    roles: { api: true, worker: false },
    config: { metricsToken: OPERATOR_TOKEN },
  });
  doc = (await client(svc.url).get('/openapi.json')).body;
});
after(() => svc.stop());

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** `[method, path]` of every documented operation. */
function operations(): [string, string][] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => (item as Record<string, unknown>)[m]).map((m) => [m, path] as [string, string]),
  );
}

test('a maintained validator finds the document valid OpenAPI 3.1', async () => {
  const validator = new Validator();
  const result = await validator.validate(doc);
  assert.equal(validator.version, '3.1');
  assert.deepEqual(result.errors, undefined);
  assert.equal(result.valid, true);
});

test('the validator is not a rubber stamp: it refuses a broken copy', async () => {
  const broken = structuredClone(doc);
  delete broken.paths['/api/payers'].get.responses['200'].description;
  assert.equal((await new Validator().validate(broken)).valid, false);
});

test('info, servers, the security scheme and the named schemas', () => {
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.version, '1.0.0');
  assert.deepEqual(doc.servers, [{ url: svc.url, description: 'This service' }]);
  const scheme = doc.components.securitySchemes.ApiKeyAuth;
  assert.deepEqual([scheme.type, scheme.in, scheme.name], ['apiKey', 'header', 'Authorization']);
  assert.match(scheme.description, /Key elig_test_/);
  assert.match(scheme.description, /Settings > API keys/);
  for (const name of [
    'EligibilityCheckRequest',
    'EligibilityCheckAccepted',
    'EligibilityCheckResponse',
    'BenefitEntry',
    'Provider',
    'Payer',
    'ResponseSubscriber',
    'RequestSubscriber',
    'Address',
    'Warning',
    'Error',
    'BatchRequest',
    'BatchAccepted',
    'BatchPage',
    'BatchCompletedEvent',
    'MonitorRequest',
    'Monitor',
    'MonitorDetail',
    'MonitorPage',
    'MonitorUpdate',
    'PayerList',
  ]) {
    assert.ok(doc.components.schemas[name], `components.schemas.${name}`);
  }
  const check = doc.components.schemas.EligibilityCheckResponse;
  assert.deepEqual(check.properties.benefits.items, { $ref: '#/components/schemas/BenefitEntry' });
  const text = JSON.stringify(doc);
  assert.ok(!text.includes('"$id"'), 'no $id is left inline');
  for (const [, ref] of text.matchAll(/"\$ref":"([^"]+)"/g)) deref(doc, { $ref: ref });
});

test('every response says why it is answered; errors are the envelope; 202s (201s) are named', () => {
  for (const [method, path] of operations()) {
    const op = doc.paths[path][method];
    assert.ok(op.operationId, `${method} ${path} has an operationId`);
    for (const [status, response] of Object.entries(op.responses) as [string, any][]) {
      assert.ok(response.description && response.description !== 'Default Response', `${path} ${status}`);
      if (Number(status) >= 400 && path.startsWith('/fhir/')) {
        // The FHIR face answers its errors as OperationOutcomes (docs/fhir.md).
        const schema = response.content['application/fhir+json'].schema;
        assert.deepEqual(schema.properties.resourceType.enum, ['OperationOutcome'], `${path} ${status}`);
      } else if (Number(status) >= 400) {
        assert.deepEqual(response.content['application/json'].schema, { $ref: '#/components/schemas/Error' });
      }
      if (status === '429' || status === '503')
        assert.ok(response.headers['Retry-After'], `${path} ${status}`);
    }
    if (method === 'post') {
      // A submit is accepted (202); a monitor (and a FHIR request) is created there and then (201); an
      // estimate is computed there and then from a stored result (200), with nothing created.
      const computed = path === '/api/eligibility/{id}/estimate' && op.responses['200'];
      assert.ok(op.responses['202'] || op.responses['201'] || computed, `${path} answers 202 or 201`);
      for (const s of ['500', '503', '415']) assert.ok(op.responses[s], `${path} documents ${s}`);
    }
  }
  const status = doc.paths['/api/eligibility/{id}/status'].get.responses['200'];
  assert.ok(status.headers['Retry-After'], 'the status answer documents Retry-After');
});

test('webhooks: each event with its body schema, headers and the signature check', () => {
  const events = Object.keys(doc.webhooks);
  assert.deepEqual(events, [
    'eligibility.completed',
    'batch.completed',
    'coverage.changed',
    'discovery.completed',
  ]);
  for (const name of events) {
    const post = doc.webhooks[name].post;
    assert.ok(post.requestBody.content['application/json'].schema.$ref, `${name} body is a named schema`);
    const headers = post.parameters.map((p: { name: string }) => p.name);
    for (const h of ['X-Webhook-Id', 'X-Webhook-Event', 'X-Webhook-Timestamp', 'X-Webhook-Signature']) {
      assert.ok(headers.includes(h), `${name} documents ${h}`);
    }
    assert.match(post.description, /HMAC-SHA256/);
    assert.match(post.description, /constant time/);
  }
  assert.equal(
    doc.webhooks['eligibility.completed'].post.requestBody.content['application/json'].schema.$ref,
    '#/components/schemas/EligibilityCheckResponse',
  );
});

test('openapi-typescript generates types that a client program type-checks against', async () => {
  const types = astToString(await openapiTS(doc));
  const dir = mkdtempSync(join(tmpdir(), 'elig-openapi-'));
  try {
    writeFileSync(join(dir, 'api.d.ts'), types);
    const request = JSON.stringify(EXAMPLE_SCENARIOS.ppoActive.request);
    writeFileSync(
      join(dir, 'client.ts'),
      `import type { components, paths, webhooks } from './api';
type Check = components['schemas']['EligibilityCheckResponse'];
type SubmitBody = paths['/api/eligibility']['post']['requestBody']['content']['application/json'];
type Accepted = paths['/api/eligibility']['post']['responses'][202]['content']['application/json'];
type StatusAnswer = paths['/api/eligibility/{id}/status']['get']['responses'][200]['content']['application/json'];
export const body: SubmitBody = ${request};
export const accepted: Accepted = { id: '0190f0c4-1e6a-7cde-8a4b-2d3c4e5f6a7b', status: 'IN_PROGRESS' };
export function notCovered(check: StatusAnswer): string[] {
  return (check.benefits ?? []).filter((b) => b.coverageStatus === 'Not Covered').map((b) => b.serviceType);
}
export function copay(check: Check): number | null | undefined {
  return check.benefits?.[0]?.copay;
}
export const error: components['schemas']['Error'] = { code: 'ThrottlingException', message: 'Slow down.' };
export type BatchEvent = webhooks['batch.completed']['post']['requestBody'];
export const params: paths['/api/eligibility/{id}/status']['get']['parameters']['path'] = { id: 'x' };
// The types are precise, not any: each of these must be refused.
// @ts-expect-error a status outside the enum
export const wrongStatus: Check['status'] = 'DONE';
// @ts-expect-error a code outside the envelope's enum
export const wrongCode: components['schemas']['Error']['code'] = 'Oops';
// @ts-expect-error the submit body requires a subscriber
export const incomplete: SubmitBody = { tradingPartnerServiceId: 'SANDBOX', provider: { npi: '1234567893' } };
`,
    );
    const program = ts.createProgram([join(dir, 'client.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      skipLibCheck: false,
      types: [],
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    assert.deepEqual(problems, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every route the app serves under /api, /operator and /fhir is documented, and every documented one is served', () => {
  const served = servedRoutes(svc.service.app!).map(({ method, path }) => [method, path] as [string, string]);
  assert.ok(
    served.some(([m, p]) => m === 'GET' && p === '/portal/checks'),
    'the route tree was read',
  );
  // The operator routes are documented too (tag Operator, their own bearer scheme).
  const api = served.filter(
    ([m, p]) =>
      (p.startsWith('/api/') || p.startsWith('/operator/') || p.startsWith('/fhir/')) && m !== 'HEAD',
  );
  const documented = operations().map(([m, p]) => [m.toUpperCase(), p] as [string, string]);
  assert.deepEqual(api.map((r) => r.join(' ')).sort(), documented.map((r) => r.join(' ')).sort());
});

test('each documented operation answers sample requests only with status codes it documents', async () => {
  const api = client(svc.url, svc.apiKey);
  const read = await keyWith(['eligibility:read']);
  const write = await keyWith(['eligibility:write']);
  const check = await api.post('/api/eligibility', EXAMPLE_SCENARIOS.ppoActive.request);
  const batch = await api.post('/api/eligibility/batch', {
    checks: [EXAMPLE_SCENARIOS.hmoNotCovered.request],
  });
  const monitor = await api.post('/api/eligibility/monitors', monitorBody({ dates: [dayFromToday(30)] }));
  const discoveryBody = {
    provider: EXAMPLE_SCENARIOS.ppoActive.request.provider,
    patient: (({ firstName, lastName, dateOfBirth }) => ({ firstName, lastName, dateOfBirth }))(
      member('SBX1000001'),
    ),
  };
  const discovery = await api.post('/api/eligibility/discovery', discoveryBody);
  const unknown = '0190f0c4-1e6a-7cde-8a4b-2d3c4e5f6a7b';
  const fhirRequest = eligibilityRequestFor(member('SBX1000001'));
  // No worker runs here: the check stays in progress, so its response is a 404 (the 200s of the FHIR reads
  // are in test/e2e/fhir.test.ts and the generated security cases).
  const fhirId = (await api.post('/fhir/R4/CoverageEligibilityRequest', fhirRequest)).body.id;
  // No worker runs here: one check is finished by hand, for the estimate's 200.
  const completed = (await api.post('/api/eligibility', EXAMPLE_SCENARIOS.ppoActive.request)).body.id;
  await svc.service.store.db.query(
    "UPDATE checks SET status = 'COMPLETED', result = $2, completed_at = now() WHERE id = $1",
    [completed, JSON.stringify({ id: completed, status: 'COMPLETED', benefits: [] })],
  );
  const charges = { charges: [{ serviceType: 'Mental Health', amount: 120 }] };
  type Sample = {
    path: string;
    body?: unknown;
    key?: string | null;
    /** Sent instead of the key (the operator routes' bearer). */
    authorization?: string;
    type?: string;
    expect: number;
  };
  await addPayerCallStats(svc.service.store.db, [
    { payerId: 'SANDBOX', connection: 'sandbox', hour: new Date(), ...emptyCounts(), calls: 1, completed: 1 },
  ]);
  const operator = `Bearer ${OPERATOR_TOKEN}`;
  const samples: Record<string, Sample[]> = {
    'post /api/eligibility': [
      { path: '/api/eligibility', body: EXAMPLE_SCENARIOS.inactivePlan.request, expect: 202 },
      { path: '/api/eligibility', body: {}, expect: 400 },
      { path: '/api/eligibility', body: {}, key: null, expect: 401 },
      { path: '/api/eligibility', body: {}, key: read, expect: 403 },
      { path: '/api/eligibility', body: 'x'.repeat(70_000), expect: 413 },
      { path: '/api/eligibility', body: '<check/>', type: 'application/xml', expect: 415 },
    ],
    'get /api/eligibility/{id}/status': [
      { path: `/api/eligibility/${check.body.id}/status`, expect: 200 },
      { path: '/api/eligibility/%ZZ/status', expect: 400 },
      { path: `/api/eligibility/${check.body.id}/status`, key: null, expect: 401 },
      { path: `/api/eligibility/${check.body.id}/status`, key: write, expect: 403 },
      { path: `/api/eligibility/${unknown}/status`, expect: 404 },
    ],
    'post /api/eligibility/{id}/estimate': [
      { path: `/api/eligibility/${completed}/estimate`, body: charges, key: read, expect: 200 },
      { path: `/api/eligibility/${completed}/estimate`, body: { charges: [] }, expect: 400 },
      { path: `/api/eligibility/${completed}/estimate`, body: charges, key: null, expect: 401 },
      { path: `/api/eligibility/${completed}/estimate`, body: charges, key: write, expect: 403 },
      { path: `/api/eligibility/${unknown}/estimate`, body: charges, expect: 404 },
      { path: `/api/eligibility/${check.body.id}/estimate`, body: charges, expect: 409 },
      { path: `/api/eligibility/${completed}/estimate`, body: 'x'.repeat(70_000), expect: 413 },
      { path: `/api/eligibility/${completed}/estimate`, body: '<x/>', type: 'application/xml', expect: 415 },
    ],
    'post /api/eligibility/batch': [
      {
        path: '/api/eligibility/batch',
        body: { checks: [EXAMPLE_SCENARIOS.ppoActive.request] },
        expect: 202,
      },
      { path: '/api/eligibility/batch', body: { checks: [] }, expect: 400 },
      { path: '/api/eligibility/batch', body: {}, key: null, expect: 401 },
      { path: '/api/eligibility/batch', body: {}, key: read, expect: 403 },
      { path: '/api/eligibility/batch', body: 'x', type: 'text/plain', expect: 415 },
    ],
    'get /api/eligibility/batch/{id}': [
      { path: `/api/eligibility/batch/${batch.body.id}`, expect: 200 },
      { path: `/api/eligibility/batch/${batch.body.id}?limit=0`, expect: 400 },
      { path: `/api/eligibility/batch/${batch.body.id}`, key: null, expect: 401 },
      { path: `/api/eligibility/batch/${batch.body.id}`, key: write, expect: 403 },
      { path: `/api/eligibility/batch/${unknown}`, expect: 404 },
    ],
    'post /api/eligibility/discovery': [
      { path: '/api/eligibility/discovery', body: discoveryBody, expect: 202 },
      { path: '/api/eligibility/discovery', body: { patient: {} }, expect: 400 },
      { path: '/api/eligibility/discovery', body: {}, key: null, expect: 401 },
      { path: '/api/eligibility/discovery', body: {}, key: read, expect: 403 },
      { path: '/api/eligibility/discovery', body: 'x'.repeat(70_000), expect: 413 },
      { path: '/api/eligibility/discovery', body: 'x', type: 'text/plain', expect: 415 },
    ],
    'get /api/eligibility/discovery/{id}': [
      { path: `/api/eligibility/discovery/${discovery.body.id}`, expect: 200 },
      { path: '/api/eligibility/discovery/%ZZ', expect: 400 },
      { path: `/api/eligibility/discovery/${discovery.body.id}`, key: null, expect: 401 },
      { path: `/api/eligibility/discovery/${discovery.body.id}`, key: write, expect: 403 },
      { path: `/api/eligibility/discovery/${unknown}`, expect: 404 },
    ],
    'post /api/eligibility/monitors': [
      {
        path: '/api/eligibility/monitors',
        body: monitorBody({ every: 30 }),
        expect: 201,
      },
      { path: '/api/eligibility/monitors', body: { every: 0 }, expect: 400 },
      { path: '/api/eligibility/monitors', body: {}, key: null, expect: 401 },
      { path: '/api/eligibility/monitors', body: {}, key: read, expect: 403 },
      { path: '/api/eligibility/monitors', body: 'x'.repeat(70_000), expect: 413 },
      { path: '/api/eligibility/monitors', body: 'x', type: 'text/plain', expect: 415 },
    ],
    'get /api/eligibility/monitors': [
      { path: '/api/eligibility/monitors', expect: 200 },
      { path: '/api/eligibility/monitors?limit=0', expect: 400 },
      { path: '/api/eligibility/monitors', key: null, expect: 401 },
      { path: '/api/eligibility/monitors', key: write, expect: 403 },
    ],
    'get /api/eligibility/monitors/{id}': [
      { path: `/api/eligibility/monitors/${monitor.body.id}`, expect: 200 },
      { path: `/api/eligibility/monitors/${monitor.body.id}`, key: null, expect: 401 },
      { path: `/api/eligibility/monitors/${monitor.body.id}`, key: write, expect: 403 },
      { path: '/api/eligibility/monitors/mon_x', expect: 404 },
    ],
    'patch /api/eligibility/monitors/{id}': [
      { path: `/api/eligibility/monitors/${monitor.body.id}`, body: { status: 'paused' }, expect: 200 },
      { path: `/api/eligibility/monitors/${monitor.body.id}`, body: { status: 'x' }, expect: 400 },
      { path: `/api/eligibility/monitors/${monitor.body.id}`, body: {}, key: null, expect: 401 },
      { path: `/api/eligibility/monitors/${monitor.body.id}`, body: {}, key: read, expect: 403 },
      { path: '/api/eligibility/monitors/mon_x', body: { status: 'paused' }, expect: 404 },
      { path: `/api/eligibility/monitors/${monitor.body.id}`, body: 'x', type: 'text/plain', expect: 415 },
    ],
    'delete /api/eligibility/monitors/{id}': [
      { path: `/api/eligibility/monitors/${monitor.body.id}`, key: null, expect: 401 },
      { path: `/api/eligibility/monitors/${monitor.body.id}`, key: read, expect: 403 },
      { path: `/api/eligibility/monitors/${monitor.body.id}`, expect: 204 },
      { path: `/api/eligibility/monitors/${monitor.body.id}`, expect: 404 },
    ],
    'get /api/payers': [
      { path: '/api/payers', expect: 200 },
      { path: '/api/payers?x=1', expect: 400 },
      { path: '/api/payers', key: null, expect: 401 },
      { path: '/api/payers', key: write, expect: 403 },
    ],
    'get /operator/scorecard': [
      { path: '/operator/scorecard', authorization: operator, expect: 200 },
      { path: '/operator/scorecard?hours=0', authorization: operator, expect: 400 },
      { path: '/operator/scorecard', expect: 401 },
    ],
    'get /fhir/R4/metadata': [{ path: '/fhir/R4/metadata', key: null, expect: 200 }],
    'post /fhir/R4/CoverageEligibilityRequest': [
      { path: '/fhir/R4/CoverageEligibilityRequest', body: fhirRequest, expect: 201 },
      { path: '/fhir/R4/CoverageEligibilityRequest', body: {}, expect: 400 },
      { path: '/fhir/R4/CoverageEligibilityRequest', body: { ...fhirRequest, contained: [] }, expect: 422 },
      { path: '/fhir/R4/CoverageEligibilityRequest', body: {}, key: null, expect: 401 },
      { path: '/fhir/R4/CoverageEligibilityRequest', body: {}, key: read, expect: 403 },
      { path: '/fhir/R4/CoverageEligibilityRequest', body: 'x'.repeat(70_000), expect: 413 },
      {
        path: '/fhir/R4/CoverageEligibilityRequest',
        body: '<x/>',
        type: 'application/fhir+xml',
        expect: 415,
      },
    ],
    'get /fhir/R4/CoverageEligibilityRequest/{id}': [
      { path: `/fhir/R4/CoverageEligibilityRequest/${fhirId}`, expect: 200 },
      { path: '/fhir/R4/CoverageEligibilityRequest/%ZZ', expect: 400 },
      { path: `/fhir/R4/CoverageEligibilityRequest/${fhirId}`, key: null, expect: 401 },
      { path: `/fhir/R4/CoverageEligibilityRequest/${fhirId}`, key: write, expect: 403 },
      { path: `/fhir/R4/CoverageEligibilityRequest/${unknown}`, expect: 404 },
    ],
    'get /fhir/R4/CoverageEligibilityResponse': [
      {
        path: `/fhir/R4/CoverageEligibilityResponse?request=CoverageEligibilityRequest/${fhirId}`,
        expect: 200,
      },
      { path: '/fhir/R4/CoverageEligibilityResponse?_count=0', expect: 400 },
      { path: '/fhir/R4/CoverageEligibilityResponse', key: null, expect: 401 },
      { path: '/fhir/R4/CoverageEligibilityResponse', key: write, expect: 403 },
    ],
    'get /fhir/R4/CoverageEligibilityResponse/{id}': [
      { path: `/fhir/R4/CoverageEligibilityResponse/${fhirId}`, expect: 404 },
      { path: '/fhir/R4/CoverageEligibilityResponse/%ZZ', expect: 400 },
      { path: `/fhir/R4/CoverageEligibilityResponse/${fhirId}`, key: null, expect: 401 },
      { path: `/fhir/R4/CoverageEligibilityResponse/${fhirId}`, key: write, expect: 403 },
      { path: `/fhir/R4/CoverageEligibilityResponse/${unknown}`, expect: 404 },
    ],
    'get /operator/scorecard/payers/{id}': [
      { path: '/operator/scorecard/payers/SANDBOX', authorization: operator, expect: 200 },
      { path: '/operator/scorecard/payers/SANDBOX?hours=x', authorization: operator, expect: 400 },
      { path: '/operator/scorecard/payers/SANDBOX', key: null, expect: 401 },
      { path: '/operator/scorecard/payers/NO-SUCH-PAYER', authorization: operator, expect: 404 },
    ],
  };
  assert.deepEqual(
    Object.keys(samples).sort(),
    operations()
      .map(([m, p]) => `${m} ${p}`)
      .sort(),
  );
  for (const [operation, list] of Object.entries(samples)) {
    const [method, documentedPath] = operation.split(' ') as [string, string];
    const documented = Object.keys(doc.paths[documentedPath][method].responses).map(Number);
    for (const s of list) {
      const key = s.key === undefined ? svc.apiKey : s.key;
      const res = await fetch(svc.url + s.path, {
        method: method.toUpperCase(),
        headers: {
          ...(s.authorization
            ? { authorization: s.authorization }
            : key
              ? { authorization: `Key ${key}` }
              : {}),
          ...(s.body !== undefined ? { 'content-type': s.type ?? 'application/json' } : {}),
        },
        body: s.body === undefined ? undefined : typeof s.body === 'string' ? s.body : JSON.stringify(s.body),
      });
      const text = await res.text();
      assert.equal(res.status, s.expect, `${operation} ${s.path}: ${text.slice(0, 200)}`);
      assert.ok(documented.includes(res.status), `${operation} answered ${res.status}, not documented`);
    }
  }
});

async function keyWith(scopes: ('eligibility:read' | 'eligibility:write')[]): Promise<string> {
  const { key } = await createApiKey(svc.service.store.db, svc.service.keys.apiKeyPepper, {
    organizationId: svc.organizationId,
    name: scopes.join('+'),
    scopes,
    mode: 'test',
  });
  return key;
}

test('docs/api.md is the one written from the document, and its overview covers every status', () => {
  const text = readFileSync(API_DOC, 'utf8');
  assert.equal(text, apiDoc(doc), 'docs/api.md is stale: run npm run docs:api');
  const overview = text.slice(text.indexOf('## Status codes'), text.indexOf('## Operations'));
  const listed = new Set([...overview.matchAll(/^\| (\d{3}) \|/gm)].map((m) => Number(m[1])));
  for (const [method, path] of operations()) {
    for (const status of Object.keys(doc.paths[path][method].responses).map(Number)) {
      assert.ok(listed.has(status), `${status} of ${method} ${path} is explained in the overview`);
    }
  }
  for (const status of [400, 401, 403, 404, 405, 409, 413, 415, 422, 429, 503]) {
    assert.ok(listed.has(status), `the overview explains ${status}`);
  }
});

test('an unknown route is a 404 and a known path with another method a 405 with Allow, both enveloped', async () => {
  const unknown = await fetch(`${svc.url}/api/eligibility/x/y/z`, {
    headers: { authorization: `Key ${svc.apiKey}` },
  });
  assert.equal(unknown.status, 404);
  assert.equal((await unknown.json()).code, 'ResourceNotFoundException');
  const outside = await fetch(`${svc.url}/no-such-page`);
  assert.equal(outside.status, 404);
  assert.equal((await outside.json()).code, 'ResourceNotFoundException');
  const wrong = await fetch(`${svc.url}/api/payers`, { method: 'DELETE' });
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.get('allow'), 'GET, HEAD');
  assert.equal((await wrong.json()).code, 'ValidationException');
});
