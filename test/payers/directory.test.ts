import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PayerConnector } from '../../src/payers/connector.ts';
import { createPayerDirectory, sandboxPayerEntry } from '../../src/payers/directory.ts';
import { createSandboxConnector } from '../../src/payers/sandbox/index.ts';

const stub = (name: string): PayerConnector => ({ name, send: async () => '' });

test('SANDBOX resolves to Sandbox Health Plan with the sandbox connector', () => {
  const directory = createPayerDirectory([sandboxPayerEntry(createSandboxConnector({ latencyMs: 0 }))]);
  const entry = directory.resolvePayer('SANDBOX');
  assert.ok(entry);
  assert.equal(entry.payerName, 'Sandbox Health Plan');
  assert.equal(entry.payerId, 'SANDBOX');
  assert.equal(entry.tradingPartnerServiceId, 'SANDBOX');
  assert.equal(entry.connector.name, 'sandbox');
});

test('unknown ids resolve to undefined (the worker fails them with SH01); matching is exact', () => {
  const directory = createPayerDirectory([sandboxPayerEntry(stub('sandbox'))]);
  for (const id of ['UNKNOWN', 'sandbox', ' SANDBOX', 'SANDBOX2', '', 'constructor', '__proto__']) {
    assert.equal(directory.resolvePayer(id), undefined, JSON.stringify(id));
  }
});

test('several payers; entries keep their order; a duplicate id is refused', () => {
  const a = { tradingPartnerServiceId: 'A1', payerName: 'Payer A', payerId: 'PA', connector: stub('a') };
  const b = { tradingPartnerServiceId: 'B2', payerName: 'Payer B', payerId: 'PB', connector: stub('b') };
  const directory = createPayerDirectory([a, b]);
  assert.equal(directory.resolvePayer('B2')?.connector.name, 'b');
  assert.deepEqual(
    directory.entries.map((e) => e.tradingPartnerServiceId),
    ['A1', 'B2'],
  );
  assert.throws(() => createPayerDirectory([a, { ...b, tradingPartnerServiceId: 'A1' }]), /twice/);
});
