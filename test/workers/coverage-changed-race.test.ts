/**
 * `coverage.changed` under concurrent finishes (issue 26 item 4): ten checks of one patient finishing at
 * once each compare with the one that finished just before them, so every change is reported by exactly
 * one event and the "previous" links form a line (no two checks name the same previous one). Meant for
 * PostgreSQL, where the finishing transactions really overlap; it runs on PGlite too.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { finishCheck } from '../../src/checks/finish.ts';
import { claimDue, QUEUES } from '../../src/store/queue/claim.ts';
import { setWebhookUrl } from '../../src/webhooks/settings.ts';
import { CLAIMED_CHECK } from '../../src/workers/check-worker.ts';
import { member } from '../helpers/members.ts';
import { client, sandboxRequest, startTestService, type TestService } from '../helpers/service.ts';

const CHECKS = 10;

let svc: TestService;
before(async () => {
  svc = await startTestService({ roles: { api: true, worker: false } });
  const url = 'http://127.0.0.1:9/hook';
  assert.ok((await setWebhookUrl(svc.service.store.db, svc.organizationId, url, { allowPrivate: true })).ok);
});
after(() => svc.stop());

test('10 checks of one patient finishing at once: one event per change, and the previous checks form a line', async () => {
  const db = svc.service.store.db;
  const ids: string[] = [];
  for (let i = 0; i < CHECKS; i++) {
    const res = await client(svc.url, svc.apiKey).post(
      '/api/eligibility',
      sandboxRequest(member('SBX1000001')),
    );
    assert.equal(res.status, 202);
    ids.push(res.body.id);
  }
  const claimed = await claimDue(db, QUEUES.checks, CLAIMED_CHECK, {
    workerId: 'w',
    limit: CHECKS,
    leaseMs: 60_000,
  });
  assert.deepEqual(claimed.map((c) => c.id).sort(), [...ids].sort());
  const patientKey = `race-${Date.now()}`;
  // Each answer names another plan, so every comparison finds a change.
  const finished = await Promise.all(
    ids.map((id, i) =>
      finishCheck(db, {
        id,
        organizationId: svc.organizationId,
        workerId: 'w',
        status: 'COMPLETED',
        body: JSON.stringify({ id, status: 'COMPLETED', planInformation: { planName: `Plan ${i}` } }),
        outcomeCode: 'COMPLETED',
        patientKey,
        tradingPartnerServiceId: 'SANDBOX',
      }),
    ),
  );
  assert.ok(finished.every((f) => f !== false));
  const { rows: events } = await db.query<{ checkId: string; previous: string }>(
    `SELECT check_id AS "checkId", body::jsonb->>'previousCheckId' AS previous FROM webhook_events
      WHERE kind = 'coverage.changed' AND check_id = ANY ($1::text[])`,
    [ids],
  );
  const { rows: checks } = await db.query<{ id: string; comparedWith: string | null }>(
    'SELECT id, compared_with AS "comparedWith" FROM checks WHERE id = ANY ($1::text[])',
    [ids],
  );
  // The first to finish has no previous check; each of the nine others found one change and sent one event.
  const compared = checks.filter((c) => c.comparedWith !== null);
  assert.equal(compared.length, CHECKS - 1);
  assert.equal(events.length, CHECKS - 1);
  for (const c of compared) {
    assert.deepEqual(
      events.filter((e) => e.checkId === c.id).map((e) => e.previous),
      [c.comparedWith],
    );
  }
  const previous = events.map((e) => e.previous);
  assert.equal(
    new Set(previous).size,
    previous.length,
    `a fan: ${previous.length - new Set(previous).size} repeats`,
  );
  // A line: from the first check, following "who compared with me" visits all ten.
  const next = new Map(compared.map((c) => [c.comparedWith!, c.id]));
  let at: string | undefined = checks.find((c) => c.comparedWith === null)!.id;
  const line: string[] = [];
  while (at) {
    line.push(at);
    at = next.get(at);
  }
  assert.equal(line.length, CHECKS);
});
