/**
 * Security cases generated for every route (issue 24 item 5): the routes are read from the app itself
 * (Fastify's route tree and the served OpenAPI document, test/helpers/route-table.ts), and every
 * key-authenticated one, under /api or (later) /fhir, gets the cases of test/helpers/security-cases.ts as
 * tests named after it. A route neither covered nor exempt here with a reason fails the first test, and the
 * self-tests below prove that it does.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import pino from 'pino';
import Type from 'typebox';
import { buildApp } from '../../src/api/app.ts';
import { errorResponses, successResponse } from '../../src/api/openapi.ts';
import { member } from '../helpers/members.ts';
import { monitorBody } from '../helpers/monitors.ts';
import {
  type CoveredRoute,
  classifyRoutes,
  type ExemptionRule,
  type RouteTable,
  readRouteTable,
} from '../helpers/route-table.ts';
import { securityCases } from '../helpers/security-cases.ts';
import {
  type Answer,
  expectRefusal,
  prepareSecurityContext,
  type SecuritySamples,
} from '../helpers/security-context.ts';
import { sandboxRequest, startTestService } from '../helpers/service.ts';

const METRICS_TOKEN = 'metrics-token-of-the-security-cases';
const svc = await startTestService({
  roles: { api: true, worker: false },
  config: { metricsToken: METRICS_TOKEN },
});
after(() => svc.stop());

const JANE = member('SBX1000001');
const SAMPLES: SecuritySamples = {
  bodies: {
    submitEligibilityCheck: () => sandboxRequest(JANE),
    submitEligibilityBatch: () => ({ checks: [sandboxRequest(JANE)] }),
    createMonitor: () => monitorBody({ every: 30 }, JANE.memberId),
    updateMonitor: () => ({ status: 'paused' }),
  },
  phi: [JANE.memberId, JANE.firstName, JANE.lastName, JANE.dateOfBirth],
};

const get = (path: string, authorization?: string) =>
  fetch(svc.url + path, { headers: authorization ? { authorization } : {}, redirect: 'manual' });
const publicRoute = (path: string, expected: number) => async () =>
  assert.equal((await get(path)).status, expected, `${path} answers without a key`);

/** Routes that are not key-authenticated by design, each with why and a probe of the rule it has instead. */
interface Exemption extends ExemptionRule {
  probe(): Promise<void>;
}
const EXEMPT: Exemption[] = [
  { path: '/', reason: 'the landing page: a map of public links', probe: publicRoute('/', 200) },
  { path: '/healthz', reason: 'liveness probe: public, no tenant data', probe: publicRoute('/healthz', 200) },
  { path: '/readyz', reason: 'readiness probe: public, no tenant data', probe: publicRoute('/readyz', 200) },
  { path: '/openapi.json', reason: 'the public API description', probe: publicRoute('/openapi.json', 200) },
  { path: '/docs', reason: 'the API reference page', probe: publicRoute('/docs', 200) },
  {
    path: '/docs/assets/{name}',
    reason: "the reference page's static assets",
    probe: publicRoute('/docs/assets/no-such-asset.js', 404),
  },
  {
    path: '/metrics',
    reason: 'Prometheus scrape: its own bearer token (METRICS_TOKEN), never an API key',
    async probe() {
      assert.equal((await get('/metrics')).status, 401);
      assert.equal((await get('/metrics', `Key ${svc.apiKey}`)).status, 401);
      assert.equal((await get('/metrics', `Bearer ${svc.apiKey}`)).status, 401);
      assert.equal((await get('/metrics', `Bearer ${METRICS_TOKEN}`)).status, 200);
    },
  },
  {
    path: '/admin/ops/{op}',
    reason: 'the operator endpoint: loopback only, a per-process admin token (src/api/routes/admin.ts)',
    async probe() {
      for (const authorization of [undefined, `Key ${svc.apiKey}`, `Bearer ${svc.apiKey}`]) {
        const res = await fetch(`${svc.url}/admin/ops/org.list`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
          body: '{}',
        });
        assert.equal(res.status, 401, `${authorization}`);
        assert.equal((await res.json()).code, 'UnauthorizedException');
      }
    },
  },
  {
    path: '/portal',
    prefix: '/portal/',
    reason: 'the provider portal: cookie sessions and CSRF, tested in test/portal/',
    async probe() {
      const res = await get('/portal/checks', `Key ${svc.apiKey}`);
      assert.equal(res.status, 303, 'an API key opens no portal page');
      assert.match(res.headers.get('location') ?? '', /^\/portal\/login/);
    },
  },
];

// Everything the tests need is made before the first test is declared: node:test starts running tests as
// soon as one is declared, so a test declared before an await could finish (and stop the service) first.
const routes = classifyRoutes(await readRouteTable(svc.service.app!), EXEMPT);
const ctx = await prepareSecurityContext(svc, routes.covered, SAMPLES);

test('every route the app serves is covered by the generated cases or exempt with a reason', () => {
  assert.ok(
    routes.covered.some((r) => r.method === 'GET' && r.path === '/api/payers'),
    'the route table was read',
  );
  assert.deepEqual(
    routes.uncovered.map(({ route, why }) => `${route.method} ${route.path}: ${why}`),
    [],
  );
  assert.deepEqual(
    routes.unused.map((e) => e.path ?? e.prefix),
    [],
    'an exemption matches no route: remove it',
  );
});

for (const route of routes.covered) {
  for (const c of securityCases(route, ctx)) test(c.name, c.run);
}
for (const exemption of EXEMPT) {
  test(`exempt ${exemption.path ?? exemption.prefix}: ${exemption.reason}`, exemption.probe);
}

test('the classifier: a route added without being covered is reported, never skipped (synthetic table)', () => {
  const ok = { 200: {}, 401: {}, 403: {}, 404: {} };
  const secured = (extra: object = {}) => ({ security: [{ ApiKeyAuth: [] }], responses: ok, ...extra });
  const synthetic: RouteTable = {
    served: [
      { method: 'GET', path: '/api/things' },
      { method: 'HEAD', path: '/api/things' },
      { method: 'POST', path: '/api/things' },
      { method: 'GET', path: '/api/things/{id}' },
      { method: 'DELETE', path: '/api/things/{id}' },
      { method: 'GET', path: '/api/open' },
      { method: 'GET', path: '/api/undocumented' },
      { method: 'HEAD', path: '/api/head-only' },
      { method: 'GET', path: '/api/no-success' },
      { method: 'GET', path: '/api/two-scopes' },
      { method: 'GET', path: '/fhir/Patient/{id}' },
      { method: 'HEAD', path: '/fhir/Patient/{id}' },
      { method: 'GET', path: '/status-page' },
      { method: 'GET', path: '/healthz' },
    ],
    doc: {
      paths: {
        '/api/things': {
          get: secured({
            operationId: 'listThings',
            parameters: [{ in: 'query', name: 'limit', schema: {} }],
          }),
          post: secured({
            operationId: 'createThing',
            requestBody: {},
            responses: { 201: {}, 401: {}, 403: {} },
          }),
        },
        '/api/things/{id}': {
          get: secured({ operationId: 'getThing', security: [{ ApiKeyAuth: ['eligibility:write'] }] }),
          delete: secured({ operationId: 'deleteThing', responses: { 204: {}, 401: {}, 403: {} } }),
        },
        '/api/open': { get: { operationId: 'open', responses: ok } },
        '/api/no-success': { get: secured({ responses: { 401: {}, 403: {} } }) },
        '/api/two-scopes': {
          get: secured({ security: [{ ApiKeyAuth: ['eligibility:read', 'eligibility:write'] }] }),
        },
        '/api/gone': { get: secured() },
        '/fhir/Patient/{id}': { get: secured({ operationId: 'readPatient' }) },
      },
    },
  };
  const result = classifyRoutes(synthetic, [
    { path: '/healthz', reason: 'public' },
    { prefix: '/old/', reason: 'nothing there any more' },
  ]);
  const covered = Object.fromEntries(result.covered.map((r) => [`${r.method} ${r.path}`, r]));
  assert.deepEqual(Object.keys(covered).sort(), [
    'GET /api/things',
    'GET /api/things/{id}',
    'GET /fhir/Patient/{id}',
    'POST /api/things',
  ]);
  assert.deepEqual(
    [
      covered['GET /api/things']!.scope,
      covered['POST /api/things']!.scope,
      covered['GET /api/things/{id}']!.scope,
    ],
    ['eligibility:read', 'eligibility:write', 'eligibility:write'],
    'by method, unless the requirement names the scope',
  );
  assert.equal(covered['GET /api/things']!.hasHead, true);
  assert.deepEqual(Object.keys(covered['GET /api/things']!.query), ['limit']);
  assert.equal(covered['POST /api/things']!.success, 201);
  const fhir = covered['GET /fhir/Patient/{id}']!;
  assert.deepEqual([fhir.family, fhir.params, fhir.hasHead], ['fhir', ['id'], true]);
  assert.deepEqual(
    Object.fromEntries(result.uncovered.map(({ route, why }) => [`${route.method} ${route.path}`, why])),
    {
      'DELETE /api/things/{id}': 'does not document 404',
      'GET /api/open':
        'documented without ApiKeyAuth security: declare it (`security: [{ ApiKeyAuth: [] }]`) or exempt it',
      'GET /api/undocumented': 'not in /openapi.json (undocumented, hidden or untagged)',
      'HEAD /api/head-only': 'not in /openapi.json (undocumented, hidden or untagged)',
      'GET /api/no-success': 'documents no 2xx answer',
      'GET /api/two-scopes':
        'several scopes (eligibility:read, eligibility:write): teach the security cases about it',
      'GET /status-page': 'served outside /api/ and /fhir/: exempt it with a reason, or serve it in a family',
      'GET /api/gone': 'documented but not served',
    },
  );
  assert.deepEqual(
    result.exempt.map((e) => e.route.path),
    ['/healthz'],
  );
  assert.deepEqual(
    result.unused.map((e) => e.prefix),
    ['/old/'],
  );
});

test('a second app with routes added without security metadata fails the classification', async () => {
  const { app } = await buildApp({
    db: svc.service.store.db,
    log: pino({ level: 'silent' }),
    apiKeyPepper: svc.service.keys.apiKeyPepper,
    version: 'test',
    rateLimits: { submit: { ratePerSecond: 1, burst: 1 }, status: { ratePerSecond: 1, burst: 1 } },
  });
  try {
    const Thing = Type.Object({ id: Type.String() });
    app.get('/api/sneaky', async () => ({ secret: true }));
    app.get(
      '/api/open-but-documented',
      {
        schema: {
          tags: ['Payers'],
          operationId: 'openButDocumented',
          response: { 200: successResponse('x', Thing) },
        },
      },
      async () => ({ id: 'x' }),
    );
    app.get(
      '/fhir/Patient/:id',
      {
        schema: {
          tags: ['Payers'],
          operationId: 'readPatient',
          security: [{ ApiKeyAuth: [] }],
          params: Type.Object({ id: Type.String() }),
          response: { 200: successResponse('x', Thing), ...errorResponses([401, 403, 404]) },
        },
      },
      async () => ({ id: 'x' }),
    );
    await app.ready();
    const result = classifyRoutes(await readRouteTable(app), EXEMPT);
    assert.deepEqual(result.uncovered.map(({ route }) => `${route.method} ${route.path}`).sort(), [
      'GET /api/open-but-documented',
      'GET /api/sneaky',
    ]);
    const fhir = result.covered.find((r) => r.path === '/fhir/Patient/{id}');
    assert.deepEqual([fhir?.family, fhir?.scope], ['fhir', 'eligibility:read']);
    assert.deepEqual(
      result.covered.filter((r) => r.family === 'api').map((r) => `${r.method} ${r.path}`),
      routes.covered.map((r) => `${r.method} ${r.path}`),
      'the same /api routes as the service',
    );
  } finally {
    await app.close();
  }
});

test('refusal bodies: an /api envelope and a FHIR OperationOutcome, each exact and without PHI', () => {
  const api = { family: 'api', method: 'GET', path: '/api/x' } as CoveredRoute;
  const fhir = { family: 'fhir', method: 'GET', path: '/fhir/Patient/{id}' } as CoveredRoute;
  const answer = (status: number, body: unknown, type = 'application/json'): Answer => ({
    status,
    headers: new Headers({ 'content-type': type }),
    text: JSON.stringify(body),
    body,
  });
  const outcome = (code: string) => ({
    resourceType: 'OperationOutcome',
    issue: [{ severity: 'error', code, diagnostics: 'No such resource.' }],
  });
  const fhirType = 'application/fhir+json; charset=utf-8';
  expectRefusal(
    api,
    answer(401, { code: 'UnauthorizedException', message: 'Missing API key.' }),
    'unauthorized',
    [],
  );
  expectRefusal(fhir, answer(401, outcome('login'), fhirType), 'unauthorized', []);
  expectRefusal(fhir, answer(403, outcome('forbidden'), fhirType), 'forbidden', []);
  expectRefusal(fhir, answer(404, outcome('not-found'), fhirType), 'not-found', []);
  const refusedBy = (
    route: CoveredRoute,
    a: Answer,
    refusal: 'unauthorized' | 'not-found',
    secrets: string[] = [],
  ) => assert.throws(() => expectRefusal(route, a, refusal, secrets), assert.AssertionError);
  refusedBy(
    fhir,
    answer(404, { code: 'ResourceNotFoundException', message: 'No such resource.' }),
    'not-found',
  );
  refusedBy(fhir, answer(404, outcome('not-found')), 'not-found'); // application/json, not FHIR's
  refusedBy(fhir, answer(404, outcome('forbidden'), fhirType), 'not-found');
  refusedBy(api, answer(404, outcome('not-found')), 'not-found');
  refusedBy(
    api,
    answer(401, { code: 'UnauthorizedException', message: 'x', stack: 'Error' }),
    'unauthorized',
  );
  refusedBy(
    api,
    answer(401, { code: 'UnauthorizedException', message: 'at f (/app/src/x.ts:3:4)' }),
    'unauthorized',
  );
  refusedBy(
    api,
    answer(404, { code: 'ResourceNotFoundException', message: `No ${JANE.memberId}` }),
    'not-found',
    [JANE.memberId],
  );
  refusedBy(api, answer(403, { code: 'AccessDeniedException', message: 'x' }), 'unauthorized');
});
