/**
 * The worker's outbound protection end to end: a payer that is down opens its breaker, so checks wait
 * (few calls, no attempts spent) and complete when it returns, or fail with SH02 once they have waited
 * PAYER_OUTAGE_WAIT_MS; and a payer never sees more than PAYER_CONCURRENCY calls at once per process.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PayerConnector, PayerEntry } from '../../src/payers/connector.ts';
import { TransientPayerError } from '../../src/payers/connector.ts';
import { createSandboxConnector } from '../../src/payers/sandbox/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { member } from '../helpers/members.ts';
import { client, sandboxRequest, startTestService, waitForResult } from '../helpers/service.ts';

const JANE = member('SBX1000001');
const sandbox = createSandboxConnector({ latencyMs: 0 });

class OutageConnector implements PayerConnector {
  readonly name = 'outage';
  down = true;
  calls = 0;
  callsWhileDown = 0;
  inFlight = 0;
  maxInFlight = 0;
  constructor(private readonly latencyMs = 0) {}
  async send(x12: string, options: { signal: AbortSignal }): Promise<string> {
    this.calls++;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.latencyMs) await new Promise((r) => setTimeout(r, this.latencyMs));
      if (this.down) {
        this.callsWhileDown++;
        throw new TransientPayerError('gateway unavailable');
      }
      return await sandbox.send(x12, options);
    } finally {
      this.inFlight--;
    }
  }
}

function entry(connector: PayerConnector): PayerEntry[] {
  return [{ tradingPartnerServiceId: 'FLAKYGW', payerName: 'Gateway Payer', payerId: 'FLAKYGW', connector }];
}

async function submitMany(url: string, key: string, n: number): Promise<string[]> {
  const c = client(url, key);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await c.post('/api/eligibility', {
      ...sandboxRequest(JANE),
      tradingPartnerServiceId: 'FLAKYGW',
    });
    assert.equal(res.status, 202);
    ids.push(res.body.id);
  }
  return ids;
}

test('a payer outage opens the breaker: checks wait with few calls and complete when it returns', async () => {
  const payer = new OutageConnector();
  const svc = await startTestService({
    payers: entry(payer),
    config: {
      payerBreakerFailures: 2,
      payerBreakerOpenMs: 200,
      // One call at a time: however many checks are claimed together, the breaker sees failures in order.
      payerConcurrency: 1,
      // Trial calls spend attempts of whichever check runs them; leave room so none runs out by chance.
      checkMaxAttempts: 10,
      checkRetryBaseMs: 20,
      payerOutageWaitMs: 60_000,
    },
  });
  try {
    const ids = await submitMany(svc.url, svc.apiKey, 12);
    // Every check has met the payer or the open breaker, and a trial call after the breaker opened has
    // failed too: without the breaker each of them would have been called by now.
    await eventually(
      async () => {
        const { rows } = await svc.service.store.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM checks WHERE id = ANY($1) AND last_error IS NOT NULL',
          [ids],
        );
        return rows[0]!.n === ids.length && payer.callsWhileDown >= 3;
      },
      { what: 'every check tried or deferred, and a failed trial call' },
    );
    const c = client(svc.url, svc.apiKey);
    for (const id of ids) {
      assert.equal(
        (await c.get(`/api/eligibility/${id}/status`)).body.status,
        'IN_PROGRESS',
        'still waiting',
      );
    }
    // Without the breaker 12 checks x 10 attempts would have hit the payer 120 times and all failed.
    assert.ok(payer.callsWhileDown < 12, `payer called ${payer.callsWhileDown} times during the outage`);
    const metrics = await fetch(`${svc.url}/metrics`).then((r) => r.text());
    assert.match(metrics, /elig_payer_circuit_state\{payer="FLAKYGW",connector="outage"\} 2/);
    assert.match(metrics, /elig_checks_deferred_total\{payer="FLAKYGW",reason="circuit-open"\} [1-9]/);

    payer.down = false;
    for (const id of ids) {
      const result = await waitForResult(c, id, 20_000);
      assert.equal(result.status, 'COMPLETED');
    }
    assert.ok(svc.logs.text.includes('payer circuit breaker changed state'));
  } finally {
    await svc.stop();
  }
});

test('checks that waited longer than PAYER_OUTAGE_WAIT_MS on an open breaker fail with SH02', async () => {
  const payer = new OutageConnector();
  const svc = await startTestService({
    payers: entry(payer),
    config: {
      payerBreakerFailures: 2,
      payerBreakerOpenMs: 200,
      checkMaxAttempts: 50,
      checkRetryBaseMs: 20,
      payerOutageWaitMs: 800,
    },
  });
  try {
    const ids = await submitMany(svc.url, svc.apiKey, 5);
    const c = client(svc.url, svc.apiKey);
    for (const id of ids) {
      const result = await waitForResult(c, id, 20_000);
      assert.equal(result.status, 'FAILED');
      assert.equal(result.errors[0].code, 'SH02');
    }
    const texts = await Promise.all(ids.map((id) => c.get(`/api/eligibility/${id}/status`)));
    assert.ok(
      texts.some((t) => JSON.stringify(t.body).includes('circuit breaker open')),
      'at least one names the open breaker',
    );
    assert.ok(payer.calls < 5 * 10, `payer called ${payer.calls} times`);
  } finally {
    await svc.stop();
  }
});

test('no more than PAYER_CONCURRENCY calls to one payer at once; the rest wait and complete', async () => {
  const payer = new OutageConnector(60);
  payer.down = false;
  const svc = await startTestService({
    payers: entry(payer),
    config: { payerConcurrency: 2, workerConcurrency: 16 },
  });
  try {
    const ids = await submitMany(svc.url, svc.apiKey, 16);
    const c = client(svc.url, svc.apiKey);
    for (const id of ids) assert.equal((await waitForResult(c, id, 20_000)).status, 'COMPLETED');
    assert.equal(payer.maxInFlight, 2);
    assert.equal(payer.calls, 16, 'waiting for a slot is not an attempt and not a call');
  } finally {
    await svc.stop();
  }
});
