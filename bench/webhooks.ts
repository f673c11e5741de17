/**
 * bench/webhooks: completion-to-receipt latency (p50/p99) and delivered events per second at 100 checks/s
 * with sandbox latency 0, against a receiver-only baseline (a plain loop POSTing to the same receiver).
 * Target: p99 <= 100 ms.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/server.ts';
import { setWebhookSecret, setWebhookUrl } from '../src/webhooks/settings.ts';
import { Receiver } from '../test/helpers/receiver.ts';

const RATE = 100;
const SECONDS = Number(process.env.BENCH_DURATION_S ?? 10);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export async function run(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'elig-bench-'));
  const config = loadConfig({
    ELIG_ENV: 'test',
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    SANDBOX_LATENCY_MS: '0',
    ELIG_ALLOW_PRIVATE_WEBHOOKS: '1',
    RATE_LIMIT_SUBMIT: '100000',
    WORKER_POLL_MS: '1000',
  });
  const service = await startService(config);
  const receiver = await new Receiver().start();
  const org = service.bootstrap!.organizationId;
  await setWebhookUrl(service.store.db, org, receiver.url, { allowPrivate: true });
  await setWebhookSecret(service.store.db, service.box, org, { generate: true });
  const headers = { authorization: `Key ${service.bootstrap!.apiKey}`, 'content-type': 'application/json' };
  const body = JSON.stringify({
    tradingPartnerServiceId: 'SANDBOX',
    provider: { organizationName: 'Bench Clinic', npi: '1234567893' },
    subscriber: { memberId: 'SBX1000002', firstName: 'JOHN', lastName: 'SMITH', dateOfBirth: '19750704' },
  });

  const total = RATE * SECONDS;
  const started = Date.now();
  const submits: Promise<unknown>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    submits.push(
      fetch(`${service.url}/api/eligibility`, { method: 'POST', headers, body }).then((r) => r.text()),
    );
  }
  await Promise.all(submits);
  await receiver.waitFor(total, 120_000);
  const elapsed = (Math.max(...receiver.received.map((r) => r.at)) - started) / 1000;
  const { rows } = await service.store.db.query<{ id: string; completed_ms: number }>(
    "SELECT id, extract(epoch FROM completed_at) * 1000 AS completed_ms FROM checks WHERE status <> 'IN_PROGRESS'",
  );
  const completedAt = new Map(rows.map((r) => [r.id, Number(r.completed_ms)]));
  const latencies = receiver.received
    .map((r) => r.at - (completedAt.get(JSON.parse(r.body).id) ?? Number.NaN))
    .filter((n) => Number.isFinite(n))
    .sort((a, b) => a - b);
  const deliveredPerSec = total / elapsed;

  // Baseline: the receiver alone, a plain loop POSTing the same body size at the same concurrency.
  receiver.received.length = 0;
  const sample = JSON.stringify({ pad: 'x'.repeat(12_000) });
  const baseStart = Date.now();
  let sent = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (sent < total) {
        sent++;
        await fetch(receiver.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: sample,
        }).then((r) => r.text());
      }
    }),
  );
  const basePerSec = total / ((Date.now() - baseStart) / 1000);

  console.log(`\nbench/webhooks: ${total} checks at ${RATE}/s, sandbox latency 0, PGlite`);
  console.log(
    `completion → receipt latency: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms (target p99 <= 100 ms; ${latencies.length} samples)`,
  );
  console.log(
    `delivered ${deliveredPerSec.toFixed(0)} events/s (offered ${RATE}/s); receiver-only baseline ${basePerSec.toFixed(0)} POST/s; ratio ${(deliveredPerSec / basePerSec).toFixed(3)}x`,
  );
  await receiver.stop();
  await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
