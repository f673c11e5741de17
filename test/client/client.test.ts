/**
 * The TypeScript client (packages/client) against the real service: submit and wait, Retry-After honoured
 * while polling, backoff without it, the typed errors of each status, abort and timeout, payers and batches.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import {
  AccessDeniedException,
  EligibilityApiError,
  type EligibilityCheckRequest,
  EligibilityClient,
  type FetchLike,
  ResourceNotFoundException,
  ThrottlingException,
  UnauthorizedException,
  ValidationException,
  type WaitProgress,
  WaitTimeoutError,
} from '../../packages/client/src/index.ts';
import { createApiKey } from '../../src/tenancy/api-keys.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import { member } from '../helpers/members.ts';
import { sandboxRequest, startTestService, type TestService } from '../helpers/service.ts';

const JANE = member('SBX1000001');
/** The sandbox's slow member answers after 20 × SANDBOX_LATENCY_MS: 2 s here, so polls can be watched. */
const DAVID = member('SBX1000007');

let svc: TestService;
/** No worker (checks stay IN_PROGRESS) and one status read per second per key: for 429s. */
let throttled: TestService;
let elig: EligibilityClient;

before(async () => {
  [svc, throttled] = await Promise.all([
    // The payer timeout stays above the slow member's 2 s, so it answers rather than times out.
    startTestService({ config: { sandboxLatencyMs: 100, payerTimeoutMs: 5000, leaseMs: 10_000 } }),
    startTestService({
      roles: { api: true, worker: false },
      config: { rateLimitStatus: 1, rateLimitSubmit: 1 },
    }),
  ]);
  elig = new EligibilityClient({ baseUrl: svc.url, apiKey: svc.apiKey });
});
after(() => Promise.all([svc.stop(), throttled.stop()]));

const request = (m = JANE, extra: object = {}) => sandboxRequest(m, extra) as EligibilityCheckRequest;

/** A fetch that records when each status read was sent, and can alter its answers. */
function recordingFetch(alter?: (res: Response) => Response): { fetch: FetchLike; reads: number[] } {
  const reads: number[] = [];
  return {
    reads,
    fetch: async (input, init) => {
      if (input.endsWith('/status')) reads.push(performance.now());
      const res = await fetch(input, init);
      return alter ? alter(res) : res;
    },
  };
}

test('submitCheck answers the 202 body and waitForCheck returns the finished check', async () => {
  const accepted = await elig.submitCheck(request());
  assert.equal(accepted.status, 'IN_PROGRESS');
  assert.match(accepted.id, /^[0-9a-f-]{36}$/);
  const result = await elig.waitForCheck(accepted.id, { timeoutMs: 20_000 });
  assert.equal(result.id, accepted.id);
  assert.equal(result.status, 'COMPLETED');
  assert.equal(result.planActive, true);
  assert.equal(result.benefits?.length, 7);
  assert.deepEqual(await elig.getCheck(accepted.id), result);
});

test('estimate: charges on the submit come back estimated; estimate() answers the same, a 409 is typed', async () => {
  const charges = [
    { serviceType: 'Mental Health' as const, amount: 120 },
    { serviceTypeCode: 'AD', amount: 800 },
  ];
  const accepted = await elig.submitCheck({ ...request(), encounter: { charges } });
  const result = await elig.waitForCheck(accepted.id, { timeoutMs: 20_000 });
  assert.deepEqual(
    result.estimates?.map((e) => e.patientPays),
    [25, 560],
  );
  const asked = await elig.estimate(accepted.id, charges);
  assert.deepEqual(asked.estimates, result.estimates);
  assert.deepEqual(asked.estimateTotal, { patientPays: 585, planPays: 335, notComputed: 0 });
  const pending = await elig.submitCheck(sandboxRequest(member('SBX1000009')) as EligibilityCheckRequest);
  await assert.rejects(elig.estimate(pending.id, charges), (err: unknown) => {
    assert.ok(err instanceof ValidationException);
    assert.equal(err.status, 409);
    return true;
  });
});

test('a FAILED check is a result, not an error: waitForCheck returns it with its errors', async () => {
  const { id } = await elig.submitCheck(request(JANE, { tradingPartnerServiceId: 'NO_SUCH_PAYER' }));
  const result = await elig.waitForCheck(id, { timeoutMs: 20_000 });
  assert.equal(result.status, 'FAILED');
  assert.equal(result.errors?.[0]?.code, 'SH01');
});

test('waitForCheck waits at least Retry-After between reads, even when asked to poll faster', async () => {
  const { fetch, reads } = recordingFetch();
  const client = new EligibilityClient({ baseUrl: svc.url, apiKey: svc.apiKey, fetch });
  const { id } = await client.submitCheck(request(DAVID));
  const progress: WaitProgress[] = [];
  // Without Retry-After these settings would read every 50 to 600 ms.
  const result = await client.waitForCheck(id, {
    timeoutMs: 30_000,
    initialIntervalMs: 50,
    maxIntervalMs: 500,
    onProgress: (p) => progress.push(p),
  });
  assert.equal(result.status, 'COMPLETED');
  assert.ok(progress.length >= 1, 'the slow member was seen IN_PROGRESS at least once');
  assert.equal(reads.length, progress.length + 1);
  for (const p of progress) {
    assert.equal(p.retryAfterSeconds, 1, 'the service sends Retry-After: 1 while IN_PROGRESS');
    assert.ok(p.nextPollMs >= 1000 && p.nextPollMs <= 1200, `wait ${p.nextPollMs} ms`);
  }
  // Timers never fire early by more than a millisecond of rounding.
  for (let i = 1; i < reads.length; i++) {
    const interval = reads[i]! - reads[i - 1]!;
    assert.ok(interval >= 999, `read ${i} came ${interval.toFixed(0)} ms after the previous one`);
  }
});

test('without Retry-After the client backs off from its initial interval, with jitter only upward', async () => {
  const stripped = recordingFetch((res) => {
    const headers = new Headers(res.headers);
    headers.delete('retry-after');
    return new Response(res.body, { status: res.status, headers });
  });
  const client = new EligibilityClient({ baseUrl: svc.url, apiKey: svc.apiKey, fetch: stripped.fetch });
  const { id } = await client.submitCheck(request(DAVID));
  const waits: number[] = [];
  const result = await client.waitForCheck(id, {
    timeoutMs: 30_000,
    initialIntervalMs: 100,
    backoffFactor: 2,
    maxIntervalMs: 800,
    onProgress: (p) => {
      assert.equal(p.retryAfterSeconds, undefined);
      waits.push(p.nextPollMs);
    },
  });
  assert.equal(result.status, 'COMPLETED');
  // 100, 200, 400, 800, 800, ... each plus up to 20 %; 2 s of slow payer outlasts the first two.
  assert.ok(waits.length >= 2, `${waits.length} waits`);
  waits.forEach((w, i) => {
    const base = Math.min(800, 100 * 2 ** i);
    assert.ok(w >= base && w <= base * 1.2, `wait ${i + 1} was ${w} ms, base ${base}`);
  });
});

test('waitForCheck rejects with WaitTimeoutError once timeoutMs has passed', async () => {
  const { id } = await elig.submitCheck(request(DAVID));
  const started = performance.now();
  const err = await elig.waitForCheck(id, { timeoutMs: 700 }).then(
    () => assert.fail('the slow member cannot finish within 700 ms'),
    (e: unknown) => e,
  );
  const took = performance.now() - started;
  assert.ok(err instanceof WaitTimeoutError, String(err));
  assert.equal(err.checkId, id);
  assert.equal(err.timeoutMs, 700);
  // Rejected at the deadline, not after the whole 1 s Retry-After wait that was under way.
  assert.ok(took >= 695 && took < 5000, `took ${took} ms`);
});

test('waitForCheck rejects with the signal reason when aborted, before or during the wait', async () => {
  const { id } = await elig.submitCheck(request(DAVID));
  const controller = new AbortController();
  const err = await elig
    .waitForCheck(id, { signal: controller.signal, onProgress: () => controller.abort() })
    .then(
      () => assert.fail('aborted'),
      (e: unknown) => e,
    );
  assert.ok(err instanceof DOMException);
  assert.equal(err.name, 'AbortError');

  const already = AbortSignal.abort(new Error('gave up'));
  await assert.rejects(elig.waitForCheck(id, { signal: already }), /gave up/);
  await assert.rejects(elig.getCheck(id, { signal: already }), /gave up/);
});

test('typed errors: 401 UnauthorizedException, 400 ValidationException, 404 ResourceNotFoundException', async () => {
  const wrongKey = new EligibilityClient({ baseUrl: svc.url, apiKey: 'elig_test_notakey' });
  const unauthorized = await wrongKey.submitCheck(request()).catch((e: unknown) => e);
  assert.ok(unauthorized instanceof UnauthorizedException);
  assert.ok(unauthorized instanceof EligibilityApiError);
  assert.deepEqual(
    [unauthorized.status, unauthorized.code, unauthorized.name],
    [401, 'UnauthorizedException', 'UnauthorizedException'],
  );
  await assert.rejects(wrongKey.listPayers(), UnauthorizedException);

  const bad = { ...request(), subscriber: { ...JANE, dateOfBirth: '1980-13-45' } };
  const invalid = await elig.submitCheck(bad).catch((e: unknown) => e);
  assert.ok(invalid instanceof ValidationException);
  assert.equal(invalid.status, 400);
  assert.match(invalid.message, /subscriber\.dateOfBirth/);
  assert.ok(!invalid.message.includes('1980-13-45'), 'the message never echoes a value');

  const missing = await elig.getCheck(randomUUID()).catch((e: unknown) => e);
  assert.ok(missing instanceof ResourceNotFoundException);
  assert.equal(missing.status, 404);
  // Any id reaches the server as one path segment.
  await assert.rejects(elig.getCheck('../payers'), ResourceNotFoundException);
  await assert.rejects(elig.getBatch(randomUUID()), ResourceNotFoundException);
});

test("another organization's check is a 404; a key without the scope is a 403", async () => {
  const db = svc.service.store.db;
  const pepper = svc.service.keys.apiKeyPepper;
  const other = await createOrganization(db, 'Other Clinic');
  const make = async (organizationId: string, scopes: ('eligibility:read' | 'eligibility:write')[]) =>
    new EligibilityClient({
      baseUrl: svc.url,
      apiKey: (await createApiKey(db, pepper, { organizationId, name: 'client test', scopes, mode: 'test' }))
        .key,
    });
  const { id } = await elig.submitCheck(request());
  const stranger = await make(other.id, ['eligibility:read', 'eligibility:write']);
  await assert.rejects(stranger.getCheck(id), ResourceNotFoundException);
  const readOnly = await make(svc.organizationId, ['eligibility:read']);
  const denied = await readOnly.submitCheck(request()).catch((e: unknown) => e);
  assert.ok(denied instanceof AccessDeniedException);
  assert.equal(denied.status, 403);
});

test('429: ThrottlingException carries retryAfter; waitForCheck waits it out rather than failing', async () => {
  const client = new EligibilityClient({ baseUrl: throttled.url, apiKey: throttled.apiKey });
  const { id } = await client.submitCheck(request());
  // A bucket of 2 reads refilled at 1/s: of 6 reads at once, some are refused.
  const answers = await Promise.allSettled(Array.from({ length: 6 }, () => client.getCheck(id)));
  const refused = answers.flatMap((a) => (a.status === 'rejected' ? [a.reason as unknown] : []));
  assert.ok(refused.length >= 3, `${refused.length} of 6 refused`);
  const err = refused[0];
  assert.ok(err instanceof ThrottlingException);
  assert.equal(err.status, 429);
  assert.ok(err.retryAfter !== undefined && err.retryAfter >= 1, `retryAfter ${err.retryAfter}`);

  // The bucket is empty now: the first read of the wait is refused, and the client waits Retry-After.
  const progress: WaitProgress[] = [];
  const timeout = await client
    .waitForCheck(id, { timeoutMs: 2500, initialIntervalMs: 50, onProgress: (p) => progress.push(p) })
    .catch((e: unknown) => e);
  assert.ok(timeout instanceof WaitTimeoutError, 'no worker: the check never finishes');
  const throttledRead = progress.find((p) => p.error instanceof ThrottlingException);
  assert.ok(throttledRead, JSON.stringify(progress));
  assert.ok(throttledRead.retryAfterSeconds! >= 1);
  assert.ok(throttledRead.nextPollMs >= throttledRead.retryAfterSeconds! * 1000);
});

test('listPayers lists the sandbox; q filters', async () => {
  const { payers } = await elig.listPayers();
  assert.ok(payers.some((p) => p.id === 'SANDBOX' && p.connectorType === 'sandbox'));
  assert.deepEqual((await elig.listPayers({ q: 'no such payer' })).payers, []);
});

test('batches: submitBatch reports bad items by index; getBatch pages; batchItems reads every page', async () => {
  const badItem = { ...request(), provider: { organizationName: 'Clinic', npi: '123' } };
  const accepted = await elig.submitBatch(
    { name: 'client test', checks: [request(JANE), badItem, request(member('SBX1000002'))] },
    { idempotencyKey: `client-test-${randomUUID()}` },
  );
  assert.equal(accepted.counts.total, 2);
  assert.equal(accepted.counts.rejected, 1);
  assert.deepEqual(
    accepted.problems.map((p) => p.index),
    [1],
  );
  const first = await elig.getBatch(accepted.id, { limit: 1 });
  assert.equal(first.items.length, 1);
  assert.ok(first.next);
  const ids = accepted.items.flatMap((i) => ('id' in i ? [i.id] : []));
  await Promise.all(ids.map((id) => elig.waitForCheck(id, { timeoutMs: 20_000 })));
  const items = [];
  for await (const item of elig.batchItems(accepted.id, { limit: 1 })) items.push(item);
  assert.deepEqual(
    items.map((i) => i.id),
    ids,
  );
  assert.ok(items.every((i) => i.status === 'COMPLETED'));
  const page = await elig.getBatch(accepted.id, { status: 'FAILED' });
  assert.deepEqual(page.items, []);
  await assert.rejects(elig.submitBatch({ checks: [] }), ValidationException);
});

test('submitCheck with an idempotency key answers the same check twice; another body is a 422', async () => {
  const key = `client-test-${randomUUID()}`;
  const first = await elig.submitCheck(request(), { idempotencyKey: key });
  const again = await elig.submitCheck(request(), { idempotencyKey: key });
  assert.equal(again.id, first.id);
  const conflict = await elig
    .submitCheck(request(member('SBX1000002')), { idempotencyKey: key })
    .catch((e: unknown) => e);
  assert.ok(conflict instanceof ValidationException);
  assert.equal(conflict.status, 422);
});

test('an answer without the envelope is an EligibilityApiError, its body not echoed', async () => {
  const proxy: FetchLike = async () =>
    new Response('<html>Bad gateway: member SBX1000001</html>', {
      status: 502,
      headers: { 'content-type': 'text/html' },
    });
  const client = new EligibilityClient({ baseUrl: svc.url, apiKey: svc.apiKey, fetch: proxy });
  const err = await client.getCheck(randomUUID()).catch((e: unknown) => e);
  assert.ok(err instanceof EligibilityApiError);
  assert.equal(err.constructor, EligibilityApiError);
  assert.deepEqual([err.status, err.code], [502, 'UnexpectedResponse']);
  assert.ok(!err.message.includes('SBX'));
  assert.throws(() => new EligibilityClient({ baseUrl: 'not a url', apiKey: 'k' }), TypeError);
});

test('monitors: create, list, read with runs, pause, resume and delete; errors are typed', async () => {
  const { tradingPartnerServiceId, provider, subscriber } = request();
  const monitor = await elig.createMonitor({ tradingPartnerServiceId, provider, subscriber, every: 7 });
  assert.match(monitor.id, /^mon_/);
  assert.equal(monitor.status, 'active');
  assert.equal(monitor.every, 7);

  const listed: string[] = [];
  for await (const m of elig.monitors({ limit: 1 })) listed.push(m.id);
  assert.ok(listed.includes(monitor.id), 'listed, across pages of one');

  // An `every` monitor runs at once: its first run is an ordinary check the client can wait for.
  let detail = await elig.getMonitor(monitor.id);
  for (let i = 0; i < 100 && !detail.runs.length; i++) {
    await new Promise((r) => setTimeout(r, 100));
    detail = await elig.getMonitor(monitor.id);
  }
  assert.equal(detail.runs.length, 1);
  const run = await elig.waitForCheck(detail.runs[0]!.checkId, { timeoutMs: 20_000 });
  assert.equal(run.status, 'COMPLETED');

  assert.equal((await elig.pauseMonitor(monitor.id)).status, 'paused');
  assert.equal((await elig.resumeMonitor(monitor.id)).status, 'active');
  assert.equal(await elig.deleteMonitor(monitor.id), undefined);
  await assert.rejects(elig.getMonitor(monitor.id), ResourceNotFoundException);
  await assert.rejects(elig.deleteMonitor(monitor.id), ResourceNotFoundException);
  await assert.rejects(
    elig.createMonitor({ tradingPartnerServiceId, provider, subscriber, every: 0 }),
    (err: unknown) => err instanceof ValidationException && err.status === 400 && /every/.test(err.message),
  );
});
