/**
 * GET /operator/scorecard and /operator/scorecard/payers/{id} on sandbox checks run end to end: the worker's
 * payer calls and finished checks reach the store through the scorecard recorder, and the routes read them
 * back as counts, shares, latency percentiles and the benefit sources of the completed checks.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { eventually } from '../helpers/eventually.ts';
import { member } from '../helpers/members.ts';
import { client, sandboxRequest, startTestService, submitAndWait } from '../helpers/service.ts';

const TOKEN = 'operator-token-of-the-scorecard-test';
const svc = await startTestService({ config: { metricsToken: TOKEN } });
after(() => svc.stop());

const operator = (path: string) =>
  fetch(svc.url + path, { headers: { authorization: `Bearer ${TOKEN}` } }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as any,
  }));

test('the scorecard counts the sandbox checks: outcomes, AAA codes, sources, latency, last success', async () => {
  const api = client(svc.url, svc.apiKey);
  const results: Record<string, string> = {};
  // From the payer's rows, plan-level only, nothing usable, inactive, AAA 67, and AAA 42 twice then an answer.
  for (const id of ['SBX1000001', 'SBX1000004', 'SBX1000006', 'SBX1000003', 'SBX1000067', 'SBX1000008']) {
    results[id] = (await submitAndWait(api, sandboxRequest(member(id)))).result.status;
  }
  assert.equal(results.SBX1000067, 'FAILED');
  assert.equal(results.SBX1000008, 'COMPLETED');
  // The recorder flushes every few seconds.
  const card = await eventually(
    async () => {
      const res = await operator('/operator/scorecard');
      assert.equal(res.status, 200);
      const sandbox = res.body.payers.items.find((p: any) => p.id === 'SANDBOX');
      return sandbox?.calls === 8 && sandbox.sources['plan-fallback'] === 1 ? res.body : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 250, what: 'the scorecard to count 8 calls' },
  );
  assert.equal(card.window.hours, 24);
  assert.deepEqual(
    card.connections.map((c: any) => [c.id, c.calls]),
    [['sandbox', 8]],
  );
  const sandbox = card.payers.items[0];
  assert.equal(card.payers.total, 1);
  assert.deepEqual(sandbox.outcomes, { completed: 5, aaa: 3, transient: 0, rejected: 0, error: 0 });
  assert.deepEqual(sandbox.aaaCodes, { '42': 2, '67': 1 });
  assert.equal(sandbox.outcomeShares.completed, 0.625);
  assert.deepEqual(sandbox.sources, { 'payer-rows': 2, 'plan-fallback': 1, none: 1 });
  assert.equal(sandbox.sourceShares['payer-rows'], 0.5);
  assert.ok(sandbox.latencyMs.p50 !== null && sandbox.latencyMs.p95 >= sandbox.latencyMs.p50);
  assert.ok(Date.now() - Date.parse(sandbox.lastSuccessAt) < 3_600_000);

  const one = await operator('/operator/scorecard/payers/SANDBOX?hours=1');
  assert.equal(one.status, 200);
  assert.equal(one.body.payer.calls, 8);
  assert.deepEqual(
    one.body.connections.map((c: any) => c.id),
    ['sandbox'],
  );
  // Counts only: nothing of a patient or a check.
  const text = JSON.stringify(card) + JSON.stringify(one.body);
  for (const phi of ['SBX1000001', 'JANE', 'DOE', '19800115']) assert.ok(!text.includes(phi), phi);
});

test('pagination and the window are query parameters; a payer without calls is a 404', async () => {
  const page = await operator('/operator/scorecard?limit=1&offset=1');
  assert.equal(page.status, 200);
  assert.deepEqual(page.body.payers.items, []);
  assert.deepEqual([page.body.payers.limit, page.body.payers.offset], [1, 1]);
  for (const bad of ['limit=0', 'limit=501', 'hours=721', 'offset=-1', 'hours=abc']) {
    const res = await operator(`/operator/scorecard?${bad}`);
    assert.equal(res.status, 400, bad);
    assert.equal(res.body.code, 'ValidationException');
  }
  const missing = await operator('/operator/scorecard/payers/NO-SUCH-PAYER');
  assert.equal(missing.status, 404);
  assert.equal(missing.body.code, 'ResourceNotFoundException');
});
