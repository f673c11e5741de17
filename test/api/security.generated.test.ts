/**
 * Security cases generated for every route (issue 24 item 5): the routes are read from the app itself
 * (Fastify's route tree and the served OpenAPI document, test/helpers/route-table.ts), and every
 * key-authenticated one, under /api or (later) /fhir, gets the cases of test/helpers/security-cases.ts as
 * tests named after it. A route neither covered nor exempt here with a reason fails the first test: the
 * last test proves it on a second app with routes added, test/helpers/security-cases.test.ts on a
 * synthetic route table (with a /fhir route).
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import pino from 'pino';
import Type from 'typebox';
import { buildApp } from '../../src/api/app.ts';
import { errorResponses, successResponse } from '../../src/api/openapi.ts';
import { eligibilityRequestFor } from '../helpers/fhir.ts';
import { member } from '../helpers/members.ts';
import { monitorBody } from '../helpers/monitors.ts';
import { classifyRoutes, type ExemptionRule, readRouteTable } from '../helpers/route-table.ts';
import { securityCases } from '../helpers/security-cases.ts';
import { prepareSecurityContext, type SecuritySamples } from '../helpers/security-context.ts';
import { sandboxRequest, startTestService } from '../helpers/service.ts';

const METRICS_TOKEN = 'metrics-token-of-the-security-cases';
// The worker runs: a FHIR CoverageEligibilityResponse exists only once its check is finished.
const svc = await startTestService({
  roles: { api: true, worker: true },
  config: { metricsToken: METRICS_TOKEN },
});
after(() => svc.stop());

const JANE = member('SBX1000001');
const SAMPLES: SecuritySamples = {
  bodies: {
    submitEligibilityCheck: () => sandboxRequest(JANE),
    submitEligibilityBatch: () => ({ checks: [sandboxRequest(JANE)] }),
    submitEligibilityDiscovery: () => ({
      provider: sandboxRequest(JANE).provider,
      patient: { firstName: JANE.firstName, lastName: JANE.lastName, dateOfBirth: JANE.dateOfBirth },
    }),
    createMonitor: () => monitorBody({ every: 30 }, JANE.memberId),
    updateMonitor: () => ({ status: 'paused' }),
    fhirCreateCoverageEligibilityRequest: () => eligibilityRequestFor(JANE),
    estimateEligibilityCheck: () => ({ charges: [{ serviceType: 'Mental Health', amount: 120 }] }),
  },
  phi: [JANE.memberId, JANE.firstName, JANE.lastName, JANE.dateOfBirth],
  ready: {
    // No worker runs here: the check is finished by hand (an estimate is served on COMPLETED checks only).
    estimateEligibilityCheck: async (id) => {
      const body = JSON.stringify({ id, status: 'COMPLETED', benefits: [] });
      await svc.service.store.db.query(
        "UPDATE checks SET status = 'COMPLETED', result = $2, completed_at = now() WHERE id = $1",
        [id, body],
      );
    },
  },
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
  {
    path: '/fhir/R4/metadata',
    reason: 'the FHIR CapabilityStatement: public, as FHIR clients read it before they authenticate',
    probe: publicRoute('/fhir/R4/metadata', 200),
  },
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
    prefix: '/operator/',
    reason:
      "the operator scorecard: counts across organizations, behind METRICS_TOKEN's bearer, never an API key (src/api/operator-token.ts)",
    async probe() {
      for (const path of ['/operator/scorecard', '/operator/scorecard/payers/SANDBOX']) {
        for (const authorization of [undefined, `Key ${svc.apiKey}`, `Bearer ${svc.apiKey}`]) {
          const res = await get(path, authorization);
          assert.equal(res.status, 401, `${path} ${authorization}`);
          assert.equal((await res.json()).code, 'UnauthorizedException');
        }
      }
      assert.equal((await get('/operator/scorecard', `Bearer ${METRICS_TOKEN}`)).status, 200);
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

test('a second app with routes added without security metadata fails the classification', async () => {
  const { app } = await buildApp({
    db: svc.service.store.db,
    log: pino({ level: 'silent' }),
    apiKeyPepper: svc.service.keys.apiKeyPepper,
    version: 'test',
    settings: svc.service.config,
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
      routes.covered.filter((r) => r.family === 'api').map((r) => `${r.method} ${r.path}`),
      'the same /api routes as the service',
    );
  } finally {
    await app.close();
  }
});
