// The pure parts of the generated security cases (test/api/security.generated.test.ts): the classifier on a
// synthetic route table (a route added without being covered is reported, never skipped; a /fhir route is
// its own family), and the refusal bodies of each family.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { member } from './members.ts';
import { type Answer, expectRefusal } from './refusal-bodies.ts';
import { type CoveredRoute, classifyRoutes, type RouteTable } from './route-table.ts';

const JANE = member('SBX1000001');

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
