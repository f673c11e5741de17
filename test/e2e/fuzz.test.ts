/**
 * 10,000 generated malformed or hostile requests against the running server: no 5xx, no crash, and every
 * non-2xx answer is the error envelope `{code, message}`. Seeded, so a failure can be replayed.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ERROR_CODES } from '../../src/api/errors.ts';
import { edgeRequests } from '../helpers/edge-requests.ts';
import { member } from '../helpers/members.ts';
import { client, startTestService, type TestService, waitForResult } from '../helpers/service.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const COUNT = Number(process.env.FUZZ_COUNT ?? 10_000);

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VALID = {
  tradingPartnerServiceId: 'SANDBOX',
  provider: { organizationName: 'Clinic', npi: '1234567893' },
  subscriber: member('SBX1000001'),
  encounter: { serviceTypeCodes: ['30'], dateOfService: '20260105' },
};

const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  '\uD800',
  '💥'.repeat(500),
  'x'.repeat(70_000),
  "'; DROP TABLE checks; --",
  '{{7*7}}',
  '${jndi:ldap://x}',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '%00',
  'ISA*00*~',
  '١٢٣',
  'NaN',
  '-1',
  '1e309',
  'null',
  'true',
];

function randomValue(r: () => number, depth = 0): unknown {
  const k = Math.floor(r() * (depth > 3 ? 6 : 9));
  switch (k) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return Math.floor(r() * 2 ** 53) * (r() < 0.5 ? -1 : 1);
    case 3:
      return r() * 1e308;
    case 4:
      return NASTY_STRINGS[Math.floor(r() * NASTY_STRINGS.length)];
    case 5:
      return String.fromCharCode(
        ...Array.from({ length: Math.floor(r() * 40) }, () => Math.floor(r() * 0xffff)),
      );
    case 6:
      return Array.from({ length: Math.floor(r() * 5) }, () => randomValue(r, depth + 1));
    case 7:
      return Object.fromEntries(
        Array.from({ length: Math.floor(r() * 5) }, () => [
          String(randomValue(r, 9)),
          randomValue(r, depth + 1),
        ]),
      );
    default:
      return { __proto__: { polluted: true }, constructor: { prototype: { x: 1 } } };
  }
}

function mutate(r: () => number): unknown {
  const body = structuredClone(VALID) as Record<string, any>;
  const paths: [string, string?][] = [
    ['tradingPartnerServiceId'],
    ['provider', 'npi'],
    ['provider', 'organizationName'],
    ['subscriber', 'memberId'],
    ['subscriber', 'firstName'],
    ['subscriber', 'lastName'],
    ['subscriber', 'dateOfBirth'],
    ['encounter', 'serviceTypeCodes'],
    ['encounter', 'dateOfService'],
    ['provider'],
    ['subscriber'],
    ['encounter'],
  ];
  const [a, b] = paths[Math.floor(r() * paths.length)]!;
  const value = randomValue(r);
  if (b) body[a]![b] = value;
  else body[a] = value;
  return body;
}

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

function generate(r: () => number, key: string, checkId: string): FuzzRequest {
  const auth = [
    `Key ${key}`,
    `Key ${key}`,
    `Key ${key}`,
    '',
    'Key',
    `Bearer ${key}`,
    `Key ${key}x`,
    `key ${key}`,
    `Key  ${key}`,
    `Key ${'A'.repeat(5000)}`,
    'Key elig_test_\u00e9\u00e9',
    'Basic YWRtaW46YWRtaW4=',
  ][Math.floor(r() * 12)]!;
  const headers: Record<string, string> = {};
  if (auth) headers.authorization = auth;
  const kind = Math.floor(r() * 10);
  if (kind <= 4) {
    const ct = [
      'application/json',
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/xml',
      'multipart/form-data; boundary=x',
      '',
    ][Math.floor(r() * 8)]!;
    if (ct) headers['content-type'] = ct;
    const body =
      r() < 0.7
        ? JSON.stringify(mutate(r))
        : r() < 0.5
          ? JSON.stringify(randomValue(r))
          : [
              '{',
              '{"a":',
              '[1,2',
              'null',
              '"',
              '{"tradingPartnerServiceId":"SANDBOX"}}',
              '\u0000',
              'x'.repeat(100),
            ][Math.floor(r() * 8)]!;
    return { method: 'POST', path: '/api/eligibility', headers, body };
  }
  if (kind <= 7) {
    const ids = [
      checkId,
      checkId.toUpperCase(),
      'x',
      '..%2F..%2F',
      '%00',
      '%ZZ',
      '0'.repeat(300),
      encodeURIComponent('💥'),
      `${checkId}%20`,
      '1;DROP',
      '..',
      '%2e%2e',
    ];
    return {
      method: 'GET',
      path: `/api/eligibility/${ids[Math.floor(r() * ids.length)]}/status${r() < 0.2 ? '?x=1&x=2' : ''}`,
      headers,
    };
  }
  const paths = [
    '/api/eligibility',
    '/api/eligibility/',
    '//api//eligibility',
    '/api/eligibility/status',
    '/admin/ops/org.create',
    '/api/%2e%2e/admin',
    '/openapi.json/../x',
    '/api/eligibility?__proto__[x]=1',
  ];
  const methods = ['PUT', 'DELETE', 'PATCH', 'GET', 'POST', 'OPTIONS'];
  return {
    method: methods[Math.floor(r() * methods.length)]!,
    path: paths[Math.floor(r() * paths.length)]!,
    headers,
  };
}

let svc: TestService;
before(async () => {
  svc = await startTestService({
    roles: { api: true, worker: false },
    config: { rateLimitSubmit: 100_000, rateLimitStatus: 100_000 },
  });
});
after(() => svc.stop());

test(`${COUNT} hostile requests: no 5xx, envelope on every error (seed ${SEED})`, {
  timeout: 240_000,
}, async () => {
  const r = rng(SEED);
  const checkId = (
    await fetch(`${svc.url}/api/eligibility`, {
      method: 'POST',
      headers: { authorization: `Key ${svc.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(VALID),
    }).then((res) => res.json())
  ).id as string;
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  const requests = Array.from({ length: COUNT }, () => generate(r, svc.apiKey, checkId));
  let next = 0;
  const workerLoop = async () => {
    while (next < requests.length) {
      const i = next++;
      const req = requests[i]!;
      let res: Response;
      try {
        res = await fetch(svc.url + req.path, {
          method: req.method,
          headers: req.headers,
          body: req.method === 'GET' || req.method === 'OPTIONS' ? undefined : req.body,
        });
      } catch (err) {
        failures.push(`#${i} ${req.method} ${req.path}: transport error ${(err as Error).message}`);
        continue;
      }
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const text = await res.text();
      if (res.status >= 500)
        failures.push(`#${i} ${req.method} ${req.path} → ${res.status} ${text.slice(0, 200)}`);
      if (res.status >= 400) {
        try {
          const body = JSON.parse(text);
          if (
            Object.keys(body).sort().join() !== 'code,message' ||
            !(ERROR_CODES as readonly string[]).includes(body.code)
          ) {
            failures.push(
              `#${i} ${req.method} ${req.path} → ${res.status} not the envelope: ${text.slice(0, 200)}`,
            );
          }
        } catch {
          failures.push(`#${i} ${req.method} ${req.path} → ${res.status} not JSON: ${text.slice(0, 200)}`);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, workerLoop));
  assert.deepEqual(failures.slice(0, 20), [], `${failures.length} failures`);
  assert.ok(
    (statuses.get(202) ?? 0) > 0 && (statuses.get(400) ?? 0) > 0 && (statuses.get(401) ?? 0) > 0,
    JSON.stringify([...statuses]),
  );
  const health = await fetch(`${svc.url}/healthz`);
  assert.equal(health.status, 200, 'the server is still up');
});

const EDGE_COUNT = Number(process.env.FUZZ_EDGE_COUNT ?? 400);

test(`${EDGE_COUNT} requests valid at the edges of every field: each accepted check reaches a final status (seed ${SEED})`, {
  timeout: 240_000,
}, async () => {
  // Its own service with workers: the one above only answers the API.
  const worked = await startTestService({ config: { rateLimitSubmit: 100_000, rateLimitStatus: 100_000 } });
  try {
    const c = client(worked.url, worked.apiKey);
    const ids: string[] = [];
    for (const [i, body] of edgeRequests(SEED, EDGE_COUNT).entries()) {
      const res = await c.post('/api/eligibility', body);
      assert.equal(res.status, 202, `edge request ${i} was refused: ${JSON.stringify(res.body)}`);
      ids.push(res.body.id);
    }
    const outcomes = new Map<string, number>();
    for (const id of ids) {
      // The retry budget (3 attempts, 20 ms base) ends well within the wait.
      const result = await waitForResult(c, id, 30_000);
      const code = result.status === 'COMPLETED' ? 'COMPLETED' : result.errors[0].code;
      outcomes.set(code, (outcomes.get(code) ?? 0) + 1);
    }
    assert.equal(outcomes.get('SH03'), undefined, `service errors: ${JSON.stringify([...outcomes])}`);
    assert.ok((outcomes.get('72') ?? 0) + (outcomes.get('75') ?? 0) > 0, JSON.stringify([...outcomes]));
  } finally {
    await worked.stop();
  }
});
