/**
 * Connections in the payers file: defined once and shared (one connector for every payer naming it),
 * failover lists, inline connectors as private connections, and one report naming every problem of a
 * file: schema, connection names, duplicates and secret references together.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { buildPayerEntries, checkDirectoryDocument } from '../../src/payers/directory-file.ts';
import type { PayerDirectoryFile } from '../../src/payers/directory-schema.ts';
import { createSandboxConnector } from '../../src/payers/sandbox/index.ts';

const settings = { ...loadConfig({ ELIG_ENV: 'test' }), payersFile: 'payers.json' };
const secrets = { env: { CH_KEY: 'k', DIRECT_PW: 'p', DIRECT_USER: 'u' } };
const options = { sandbox: createSandboxConnector({ latencyMs: 0 }), secrets };

const clearinghouse = {
  type: 'x12-json',
  url: 'https://clearinghouse.example/x12',
  auth: { type: 'api-key', key: { env: 'CH_KEY' } },
  limits: { concurrency: 5, ratePerSecond: 10 },
  stcStrategy: 'loops',
};
const direct = {
  type: 'caqh-core-soap',
  url: 'https://payer.example/core',
  username: { env: 'DIRECT_USER' },
  password: { env: 'DIRECT_PW' },
  timeoutMs: 15_000,
};

test('payers of one connection share its connector, limits and profile; a list is the failover order', () => {
  const doc = {
    connections: { ch: clearinghouse, direct },
    payers: [
      { id: 'A', name: 'A Health', payerId: 'A1', connection: 'ch' },
      { id: 'B', name: 'B Health', payerId: 'B1', connection: 'ch', stcStrategy: 'separate' },
      { id: 'C', name: 'C Health', payerId: 'C1', connection: ['direct', 'ch'] },
      {
        id: 'D',
        name: 'D Health',
        payerId: 'D1',
        connector: {
          type: 'x12-json',
          url: 'https://d.example/x12',
          auth: { type: 'api-key', key: { env: 'CH_KEY' } },
        },
      },
    ],
  };
  assert.deepEqual(checkDirectoryDocument(doc, settings, secrets), []);
  const { entries, connections } = buildPayerEntries(doc as unknown as PayerDirectoryFile, settings, options);
  const byId = new Map(entries.map((e) => [e.tradingPartnerServiceId, e]));
  assert.equal(
    byId.get('A')!.connections![0],
    byId.get('B')!.connections![0],
    'one connection object, shared',
  );
  assert.deepEqual(byId.get('A')!.connections![0]!.limits, { concurrency: 5, ratePerSecond: 10 });
  assert.equal(byId.get('A')!.connections![0]!.stcStrategy, 'loops');
  assert.equal(byId.get('B')!.stcStrategy, 'separate');
  assert.deepEqual(
    byId.get('C')!.connections!.map((c) => c.name),
    ['direct', 'ch'],
  );
  assert.equal(byId.get('C')!.timeoutMs, 15_000, "the first connection's time budget");
  assert.deepEqual(
    byId.get('D')!.connections!.map((c) => c.name),
    ['payer:D'],
  );
  assert.deepEqual([...connections.keys()].sort(), ['ch', 'direct', 'payer:D']);
  // A rebuild with the same settings keeps the built connections (their pools and tokens).
  const again = buildPayerEntries(doc as unknown as PayerDirectoryFile, settings, {
    ...options,
    previous: connections,
  });
  assert.equal(again.connections.get('ch'), connections.get('ch'));
});

test('one report names every problem: schema, connections, duplicates and secrets together', () => {
  const doc = {
    connections: {
      ch: { ...clearinghouse, limits: { concurrency: 0 } },
      'Bad Name': clearinghouse,
      direct: { ...direct, password: { env: 'NOT_SET' } },
    },
    payers: [
      { id: 'A', name: 'A', payerId: 'A1', connection: 'nowhere' },
      { id: 'B', name: 'B', payerId: 'B1', connection: ['direct', 'direct'] },
      { id: 'A', name: 'Again', payerId: 'A2', connection: 'direct', timeoutMS: 5 },
      { id: 'E', name: 'E', payerId: 'E1' },
      {
        id: 'F',
        name: 'F',
        payerId: 'F1',
        connection: 'direct',
        connector: {
          type: 'x12-json',
          url: 'https://f.example',
          auth: { type: 'api-key', key: { env: 'CH_KEY' } },
        },
      },
    ],
  };
  const problems = checkDirectoryDocument(doc, settings, secrets).join('\n');
  for (const expected of [
    /connections\.ch\.limits\.concurrency must be from 1/,
    /connections\.Bad Name: "Bad Name" is not a valid name/,
    /connections\.direct\.password: environment variable NOT_SET is not set/,
    /payers\[0\]\.connection "nowhere" is not a connection of this file/,
    /payers\[1\]\.connection\[1\] "direct" is listed twice/,
    /payers\[2\]\.id "A" is also the id or alias of payers\[0\]/,
    /payers\[2\]\.timeoutMS is not a known field \(did you mean timeoutMs\?\)/,
    /payers\[3\] needs a connection/,
    /payers\[4\] has both connection and connector/,
  ]) {
    assert.match(problems, expected);
  }
  assert.doesNotMatch(problems, /\bk\b|"p"/, 'no secret value in the report');
});

test('a file of thousands of payers reports at most 200 problems, then how many more', async () => {
  const { directoryError } = await import('../../src/payers/directory-file.ts');
  const doc = {
    connections: { ch: clearinghouse },
    payers: Array.from({ length: 500 }, (_, i) => ({
      id: `P${i}`,
      name: `P${i}`,
      payerId: `P${i}`,
      connection: 'none',
    })),
  };
  const problems = checkDirectoryDocument(doc, settings, secrets);
  assert.equal(problems.length, 500);
  const message = directoryError('payers file', problems).message;
  assert.match(message, /… and 300 more/);
  assert.equal(message.split('\n  - ').length, 201);
});
