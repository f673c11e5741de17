import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PayerConnector } from '../../src/payers/connector.ts';
import {
  createPayerDirectory,
  findPayers,
  listedPayer,
  sandboxPayerEntry,
} from '../../src/payers/directory.ts';
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

test('aliases resolve to their payer; an alias may not repeat an id or another alias', () => {
  const a = {
    tradingPartnerServiceId: 'A1',
    payerName: 'Payer A',
    payerId: 'PA',
    aliases: ['87726', 'a-old'],
    connector: stub('a'),
  };
  const directory = createPayerDirectory([a]);
  assert.equal(directory.resolvePayer('87726'), a);
  assert.equal(directory.resolvePayer('a-old')?.tradingPartnerServiceId, 'A1');
  const b = { tradingPartnerServiceId: 'B2', payerName: 'B', payerId: 'PB', connector: stub('b') };
  assert.throws(() => createPayerDirectory([a, { ...b, aliases: ['87726'] }]), /87726 twice/);
  assert.throws(() => createPayerDirectory([a, { ...b, tradingPartnerServiceId: 'a-old' }]), /twice/);
});

test('listings: id, name, aliases and connector type only; ?q matches id, alias or name, any case', () => {
  const entries = [
    sandboxPayerEntry(stub('sandbox')),
    {
      tradingPartnerServiceId: 'UHC',
      payerName: 'UnitedHealthcare',
      payerId: '87726',
      aliases: ['87726'],
      connector: stub('x12-json'),
      connectorType: 'x12-json' as const,
      timeoutMs: 1000,
    },
  ];
  const listed = entries.map(listedPayer);
  assert.deepEqual(listed, [
    { id: 'SANDBOX', name: 'Sandbox Health Plan', aliases: [], connectorType: 'sandbox' },
    { id: 'UHC', name: 'UnitedHealthcare', aliases: ['87726'], connectorType: 'x12-json' },
  ]);
  const ids = (q?: string) => findPayers(listed, q).map((p) => p.id);
  assert.deepEqual(ids(), ['SANDBOX', 'UHC']);
  assert.deepEqual(ids('  '), ['SANDBOX', 'UHC']);
  assert.deepEqual(ids('united'), ['UHC']);
  assert.deepEqual(ids('877'), ['UHC'], 'alias substring');
  assert.deepEqual(ids('sAnD'), ['SANDBOX']);
  assert.deepEqual(ids('health'), ['SANDBOX', 'UHC']);
  assert.deepEqual(ids('nothing'), []);
});

test('searchPayers ranks the directory (states included); closestPayers names payers near an unknown id', () => {
  const entry = (id: string, payerName: string, states?: string[]) => ({
    tradingPartnerServiceId: id,
    payerName,
    payerId: id,
    connector: stub('x12-json'),
    connectorType: 'x12-json' as const,
    ...(states ? { states } : {}),
  });
  const directory = createPayerDirectory([
    sandboxPayerEntry(stub('sandbox')),
    entry('00621', 'Blue Cross Blue Shield of Illinois', ['IL']),
    entry('84980', 'Blue Cross Blue Shield of Texas', ['TX']),
    entry('TXFUND', 'Carpenters Trust Fund', ['TX']),
  ]);
  const ids = (q: string, limit?: number) => directory.searchPayers(q, limit).map((p) => p.id);
  assert.deepEqual(ids('bcbs tx'), ['84980', '00621']);
  assert.equal(ids('carpenters texas')[0], 'TXFUND', 'the state from `states`, not the name');
  assert.deepEqual(ids('', 2), ['SANDBOX', '00621']);
  assert.deepEqual(directory.searchPayers('84980')[0], {
    id: '84980',
    name: 'Blue Cross Blue Shield of Texas',
    aliases: [],
    connectorType: 'x12-json',
  });
  assert.deepEqual(
    directory.closestPayers('84908').map((p) => p.id),
    ['84980'],
  );
  assert.deepEqual(directory.closestPayers('NOTHING-LIKE-IT'), []);
});
