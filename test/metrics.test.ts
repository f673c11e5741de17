/**
 * The payer label of the metrics is bounded (src/metrics.ts): with 10,000 payers in the directory, at most
 * METRICS_PAYER_LABELS of them are named (those with the most calls in the last day, from the scorecard's
 * table) and the rest count as "other"; a payer that leaves the top has its series removed. A small
 * directory names every payer.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { Metrics } from '../src/metrics.ts';
import { openStore, type Store } from '../src/store/open.ts';
import { addPayerCallStats, emptyCounts } from '../src/store/payer-call-stats.ts';
import { dropTestSchema, testConfig } from './helpers/service.ts';

const config = testConfig();
let store: Store;
before(async () => {
  store = await openStore(config);
});
after(async () => {
  await store.close();
  await dropTestSchema(config);
  rmSync(config.dataDir, { recursive: true, force: true });
});

const PAYERS = Array.from({ length: 10_000 }, (_, k) => `P${String(k).padStart(5, '0')}`);
const directory = (id: string) => (id.startsWith('P') ? { id, connector: 'x12-json' } : undefined);

/** The distinct values of the `payer` label in the registry's text. */
async function payerLabels(metrics: Metrics): Promise<Set<string>> {
  const text = await metrics.registry.metrics();
  return new Set([...text.matchAll(/payer="([^"]*)"/g)].map((m) => m[1]!));
}

function everyPayerOnce(metrics: Metrics) {
  for (const id of PAYERS) {
    metrics.submitted(id);
    metrics.payerCalled(id, 'ok', 120, 'stedi');
    metrics.finished({ tradingPartnerServiceId: id, status: 'COMPLETED', durationMs: 150 });
    metrics.benefitSource(id, 'stedi', 'payer-rows');
  }
  metrics.submitted('NOT-A-PAYER');
}

test('10,000 payers produce at most N + 1 payer label values (N named, "other"), plus "unknown"', async () => {
  const now = new Date();
  const hour = new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000);
  // Payer k made 10,000 - k calls: P00000 … P00049 are the top 50.
  await addPayerCallStats(
    store.db,
    PAYERS.map((payerId, k) => ({ payerId, connection: 'stedi', hour, ...emptyCounts(), calls: 10_000 - k })),
  );
  const metrics = new Metrics(store.db, directory);
  metrics.boundPayerLabels({ maxPayers: 50, directorySize: PAYERS.length });
  await metrics.refreshPayerLabels(now);
  everyPayerOnce(metrics);
  const labels = await payerLabels(metrics);
  labels.delete('unknown');
  assert.equal(labels.size, 51);
  assert.ok(labels.has('other'));
  for (const id of PAYERS.slice(0, 50)) assert.ok(labels.has(id), id);
  const text = await metrics.registry.metrics();
  assert.match(text, /elig_checks_submitted_total\{payer="other"\} 9950/);
  assert.match(text, /elig_checks_submitted_total\{payer="unknown"\} 1/);
  assert.match(
    text,
    /elig_payer_call_duration_seconds_count\{payer="P00000",connector="x12-json",connection="stedi",result="ok"\} 1/,
  );

  // The ranking changes: P09999 … P09950 overtake. The old top's series go; still 50 named.
  await addPayerCallStats(
    store.db,
    PAYERS.slice(-50).map((payerId) => ({
      payerId,
      connection: 'stedi',
      hour,
      ...emptyCounts(),
      calls: 1_000_000,
    })),
  );
  await metrics.refreshPayerLabels(now);
  everyPayerOnce(metrics);
  const after = await payerLabels(metrics);
  after.delete('unknown');
  assert.equal(after.size, 51);
  for (const id of PAYERS.slice(-50)) assert.ok(after.has(id), id);
  assert.ok(!after.has('P00000'), 'a payer that left the top has no series left');
});

test('a directory no larger than the bound names every payer, without reading the store', async () => {
  const metrics = new Metrics(store.db, directory);
  metrics.boundPayerLabels({ maxPayers: 50, directorySize: 3 });
  await metrics.refreshPayerLabels();
  for (const id of ['P00001', 'P09998', 'P05000']) metrics.submitted(id);
  assert.deepEqual([...(await payerLabels(metrics))].sort(), ['P00001', 'P05000', 'P09998']);
});
