/**
 * The payers file (PAYERS_FILE): valid entries join the sandbox with their connector built through the
 * factory map, secrets resolved by reference; an invalid file stops the start naming every problem (entry,
 * field, why) and never a secret's value.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import type { PayerConnector } from '../../src/payers/connector.ts';
import type { ConnectorDeps, ConnectorFactories } from '../../src/payers/connectors.ts';
import { createPayerDirectory } from '../../src/payers/directory.ts';
import {
  type DirectorySettings,
  listConfiguredPayers,
  loadPayerEntries,
} from '../../src/payers/directory-file.ts';
import { createSandboxConnector } from '../../src/payers/sandbox/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'elig-payers-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

function payersFile(content: unknown): string {
  const path = join(dir, `payers-${files++}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

function settings(over: Partial<DirectorySettings> = {}): DirectorySettings {
  const c = loadConfig({ ELIG_ENV: 'test' });
  return { ...c, ...over };
}

/** Connectors that record what the loader gave them, so tests see configs, secrets and envelope ids. */
function recordingFactories() {
  const built: { type: string; config: unknown; deps: ConnectorDeps }[] = [];
  const make =
    (type: string) =>
    (config: unknown, deps: ConnectorDeps): PayerConnector => {
      built.push({ type, config, deps });
      return { name: type, send: async () => '' };
    };
  const factories = {
    'caqh-core-soap': make('caqh-core-soap'),
    'caqh-core-mime': make('caqh-core-mime'),
    'x12-json': make('x12-json'),
  } as ConnectorFactories;
  return { factories, built };
}

const sandbox = createSandboxConnector({ latencyMs: 0 });
const SOAP = { type: 'caqh-core-soap', url: 'https://core.example.test/soap' };
const ACME = {
  id: 'ACME1',
  name: 'Acme Health',
  payerId: 'ACME',
  aliases: ['87726', 'acme'],
  connector: { ...SOAP, username: { env: 'ACME_USER' }, password: { file: '' } },
};

test('without PAYERS_FILE the directory is the sandbox; SANDBOX_ENABLED=0 leaves it empty', () => {
  const secrets = { env: {} };
  const on = loadPayerEntries(settings(), { sandbox, secrets });
  assert.deepEqual(
    on.map((e) => [e.tradingPartnerServiceId, e.connectorType]),
    [['SANDBOX', 'sandbox']],
  );
  assert.deepEqual(loadPayerEntries(settings({ sandboxEnabled: false }), { sandbox, secrets }), []);
  assert.equal(loadConfig({ SANDBOX_ENABLED: '0' }).sandboxEnabled, false);
  assert.equal(loadConfig({}).sandboxEnabled, true);
});

test('entries join the sandbox: secrets by reference, aliases, envelope ids and per-payer limits', () => {
  const secretFile = payersFile('s3cr3t-from-file\n');
  const path = payersFile({
    payers: [
      { ...ACME, connector: { ...ACME.connector, password: { file: secretFile } }, concurrency: 4 },
      {
        id: 'STEDI-62308',
        name: 'Cigna via Stedi',
        payerId: '62308',
        connector: {
          type: 'x12-json',
          url: 'https://gateway.example.test/x12',
          senderId: 'MYSUBMITTER',
          senderQualifier: '30',
          receiverId: 'STEDI',
          auth: { type: 'api-key', key: { env: 'STEDI_KEY' } },
        },
        timeoutMs: 30_000,
      },
    ],
  });
  const { factories, built } = recordingFactories();
  const entries = loadPayerEntries(settings({ payersFile: path }), {
    sandbox,
    factories,
    secrets: { env: { ACME_USER: 'acme-user', STEDI_KEY: 'stedi-key-value' } },
  });
  assert.deepEqual(
    entries.map((e) => e.tradingPartnerServiceId),
    ['SANDBOX', 'ACME1', 'STEDI-62308'],
  );
  const [, acme, stedi] = entries;
  assert.equal(acme!.concurrency, 4);
  assert.equal(acme!.timeoutMs, 20_000, 'CORE connectors default to 20 s (PAYER_TIMEOUT_MS is 45 s)');
  assert.equal(acme!.envelope, undefined);
  assert.equal(stedi!.timeoutMs, 30_000);
  assert.deepEqual(stedi!.envelope, { senderId: 'MYSUBMITTER', senderQualifier: '30', receiverId: 'STEDI' });

  const soap = built.find((b) => b.type === 'caqh-core-soap')!;
  const cfg = soap.config as typeof ACME.connector & { password: { file: string } };
  assert.equal(soap.deps.secret(cfg.username), 'acme-user');
  assert.equal(soap.deps.secret(cfg.password), 's3cr3t-from-file', 'trailing newline trimmed');
  assert.equal(soap.deps.senderId, 'ELIGSVC', 'X12_SENDER_ID by default');
  assert.equal(soap.deps.receiverId, 'ACME', 'payerId by default');
  const json = built.find((b) => b.type === 'x12-json')!;
  assert.equal(json.deps.senderId, 'MYSUBMITTER');
  assert.equal(json.deps.receiverId, 'STEDI');
  assert.equal(
    json.deps.secret((json.config as { auth: { key: { env: string } } }).auth.key),
    'stedi-key-value',
  );

  const directory = createPayerDirectory(entries);
  for (const id of ['ACME1', '87726', 'acme']) assert.equal(directory.resolvePayer(id), acme, id);
  assert.equal(directory.resolvePayer('ACME'), undefined, 'payerId is not an alias');
  assert.equal(directory.resolvePayer('Acme1'), undefined, 'ids match exactly');
});

test('an invalid file names every problem with its entry, field and reason', () => {
  const path = payersFile({
    payers: [
      { ...ACME, aliases: ['87726', 'bad id'], timeoutMS: 5000, connector: { ...SOAP, usernme: 'x' } },
      { id: 'B', name: 'B', payerId: 'B', connector: { type: 'caqh-core-mime', url: 'ftp://x' } },
      { id: 'C', name: 'C', payerId: 'C', connector: { type: 'x12-json', url: 'https://x.test' } },
      { id: '87726', name: 'D', payerId: 'D', connector: { type: 'soap', url: 'https://x.test' } },
      {
        id: 'E',
        payerId: 'E',
        concurrency: 0,
        connector: {
          type: 'x12-json',
          url: 'https://x.test',
          auth: { type: 'api-key', key: { vault: 'x' } },
          receiverQualifier: 'zz',
        },
      },
      {
        id: 'F',
        name: 'F',
        payerId: 'F',
        connector: {
          type: 'x12-json',
          url: 'https://x.test',
          auth: { type: 'oauth2-client-credentials', tokenUrl: 'https://t.test', clientId: { env: '1X' } },
        },
      },
    ],
  });
  const err = captureError(() =>
    loadPayerEntries(settings({ payersFile: path }), { sandbox, secrets: { env: {} } }),
  );
  for (const line of [
    'payers[0].timeoutMS is not a known field (did you mean timeoutMs?)',
    'payers[0].aliases[1] has an invalid format',
    'payers[0].connector.usernme is not a known field',
    'payers[1].connector.url has an invalid format',
    'payers[2].connector.auth is required',
    'payers[3].connector.type must be one of caqh-core-soap, caqh-core-mime, x12-json',
    'payers[3].id "87726" is also the id or alias of payers[0]',
    'payers[4].name is required',
    'payers[4].concurrency must be from 1 to 1024',
    'payers[4].connector.auth.key must be {"env": …} or {"file": …}',
    'payers[4].connector.receiverQualifier has an invalid format',
    'payers[5].connector.auth.clientId.env has an invalid format',
    'payers[5].connector.auth.clientSecret is required',
  ]) {
    assert.ok(err.message.includes(`\n  - ${line}`), `missing "${line}" in:\n${err.message}`);
  }
  assert.match(err.message, /^Invalid payers file .*payers-\d+\.json:/);
});

test('ids and aliases are unique across the file; SANDBOX is reserved while the sandbox is on', () => {
  const entry = (id: string, aliases: string[] = []) => ({
    id,
    name: id,
    payerId: 'P',
    aliases,
    connector: SOAP,
  });
  const path = payersFile({
    payers: [entry('A', ['87726', 'A2', 'A2']), entry('B', ['A']), entry('SANDBOX'), entry('87726')],
  });
  const err = captureError(() => listConfiguredPayers(settings({ payersFile: path })));
  for (const line of [
    'payers[0].aliases[2] "A2" is listed twice for payers[0]',
    'payers[1].aliases[0] "A" is also the id or alias of payers[0]',
    'payers[2].id "SANDBOX" is the built-in sandbox payer\'s id (set SANDBOX_ENABLED=0 to reuse it)',
    'payers[3].id "87726" is also the id or alias of payers[0]',
  ]) {
    assert.ok(err.message.includes(line), `missing "${line}" in:\n${err.message}`);
  }
  const ok = payersFile({ payers: [entry('SANDBOX', ['SBX'])] });
  const listed = listConfiguredPayers(settings({ payersFile: ok, sandboxEnabled: false }));
  assert.deepEqual(listed, [
    { id: 'SANDBOX', name: 'SANDBOX', aliases: ['SBX'], connectorType: 'caqh-core-soap' },
  ]);
});

test('envelope ids, URLs and timeouts are checked against what the 270 and the lease allow', () => {
  const path = payersFile({
    payers: [
      { id: 'LONG', name: 'Long', payerId: 'PAYERID-OF-20-CHARS', connector: SOAP },
      {
        id: 'LONG2',
        name: 'Long',
        payerId: 'PAYERID-OF-20-CHARS',
        connector: { ...SOAP, receiverId: 'SHORT' },
      },
      { id: 'SLOW', name: 'Slow', payerId: 'S', connector: SOAP, timeoutMs: 120_000 },
      { id: 'CREDS', name: 'Creds', payerId: 'C', connector: { ...SOAP, url: 'https://user:pw@gw.test/' } },
      { id: 'BADURL', name: 'Bad', payerId: 'B', connector: { ...SOAP, url: 'https://[nope/' } },
    ],
  });
  const err = captureError(() => listConfiguredPayers(settings({ payersFile: path })));
  assert.match(err.message, /payers\[0\]\.payerId is longer than 15 characters.*set connector\.receiverId/);
  assert.doesNotMatch(err.message, /payers\[1\]/);
  assert.match(err.message, /payers\[2\]\.timeoutMs \(120000\) must be less than LEASE_MS \(120000\)/);
  assert.match(err.message, /payers\[3\]\.connector\.url must not carry credentials/);
  assert.doesNotMatch(err.message, /user:pw/);
  assert.match(err.message, /payers\[4\]\.connector\.url is not a valid URL/);
});

test('secrets: a missing variable or an unreadable or empty file names the reference, never a value', () => {
  const empty = payersFile('\n');
  const path = payersFile({
    payers: [
      {
        ...ACME,
        connector: { ...SOAP, username: { env: 'ACME_USER' }, password: { env: 'ACME_CORE_PASSWORD' } },
      },
      { ...ACME, id: 'X2', aliases: [], connector: { ...SOAP, password: { file: join(dir, 'absent') } } },
      { ...ACME, id: 'X3', aliases: [], connector: { ...SOAP, password: { file: empty } } },
      { ...ACME, id: 'X4', aliases: [], connector: { ...SOAP, password: { env: 'EMPTY_VAR' } } },
    ],
  });
  const err = captureError(() =>
    loadPayerEntries(settings({ payersFile: path }), {
      sandbox,
      factories: recordingFactories().factories,
      secrets: { env: { ACME_USER: 'the-user-secret', EMPTY_VAR: '' } },
    }),
  );
  for (const line of [
    'payers[0].connector.password: environment variable ACME_CORE_PASSWORD is not set',
    `payers[1].connector.password: file ${join(dir, 'absent')} could not be read (ENOENT)`,
    `payers[2].connector.password: file ${empty} is empty`,
    'payers[3].connector.password: environment variable EMPTY_VAR is empty',
  ]) {
    assert.ok(err.message.includes(line), `missing "${line}" in:\n${err.message}`);
  }
  assert.doesNotMatch(err.message, /the-user-secret/);
});

test('a connector that refuses its config stops the start by path, naming the field', () => {
  // A CORE connector needs a password (with a user name) or a client certificate: this one has neither.
  const path = payersFile({ payers: [{ id: 'A', name: 'A', payerId: 'A', connector: SOAP }] });
  const err = captureError(() =>
    loadPayerEntries(settings({ payersFile: path }), { sandbox, secrets: { env: {} } }),
  );
  assert.match(err.message, /payers\[0\]\.connector: /);
  assert.match(err.message, /username|password|clientCert/);
});

test('unreadable or malformed JSON is named by path and position, never quoted', () => {
  const missing = captureError(() => listConfiguredPayers(settings({ payersFile: join(dir, 'nope.json') })));
  assert.match(missing.message, /PAYERS_FILE .*nope\.json could not be read \(ENOENT\)/);
  const broken = payersFile('{"payers": [\n  {"id": "A", "name": secretvalue}\n]}');
  const bad = captureError(() => listConfiguredPayers(settings({ payersFile: broken })));
  assert.match(bad.message, /is not valid JSON/);
  assert.doesNotMatch(bad.message, /secretvalue/);
  const notObject = captureError(() => listConfiguredPayers(settings({ payersFile: payersFile([]) })));
  assert.match(notObject.message, /the document must be an object/);
});

function captureError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${(err as Error).name}`);
    return err;
  }
  assert.fail('expected the directory to be refused');
}

test('a connector may copy its config: secrets are found by what they name; extra ones are checked too', () => {
  const path = payersFile({
    payers: [{ id: 'A', name: 'A', payerId: 'A', connector: { ...SOAP, password: { env: 'PW' } } }],
  });
  const seen: string[] = [];
  const factories = {
    ...recordingFactories().factories,
    'caqh-core-soap': (config: { password?: { env: string } }, deps: ConnectorDeps) => {
      seen.push(deps.secret(structuredClone(config.password!)));
      return { name: 'copy', send: async () => '' };
    },
  } as ConnectorFactories;
  loadPayerEntries(settings({ payersFile: path }), {
    sandbox,
    factories,
    secrets: { env: { PW: 'pw-value' } },
  });
  assert.deepEqual(seen, ['pw-value']);
  const asksMore = {
    ...factories,
    'caqh-core-soap': (_config: unknown, deps: ConnectorDeps) => {
      deps.secret({ env: 'NOT_IN_CONFIG' });
      return { name: 'x', send: async () => '' };
    },
  } as ConnectorFactories;
  const err = captureError(() =>
    loadPayerEntries(settings({ payersFile: path }), {
      sandbox,
      factories: asksMore,
      secrets: { env: { PW: 'pw-value' } },
    }),
  );
  assert.match(err.message, /\n {2}- payers\[0\]\.connector: environment variable NOT_IN_CONFIG is not set$/);
  assert.doesNotMatch(err.message, /pw-value/);
});

test('keepMemberIdSeparators: a payer whose member ids have dashes says so, and submission keeps them', () => {
  const connector = { ...SOAP, username: { env: 'ACME_USER' }, password: { env: 'ACME_PASSWORD' } };
  const path = payersFile({
    payers: [
      { ...ACME, connector, keepMemberIdSeparators: true },
      { ...ACME, id: 'ACME2', aliases: [], connector },
    ],
  });
  const entries = loadPayerEntries(settings({ payersFile: path, sandboxEnabled: false }), {
    sandbox,
    factories: recordingFactories().factories,
    secrets: { env: { ACME_USER: 'acme-user', ACME_PASSWORD: 'p' } },
  });
  assert.deepEqual(
    entries.map((e) => [e.tradingPartnerServiceId, e.keepMemberIdSeparators]),
    [
      ['ACME1', true],
      ['ACME2', undefined],
    ],
  );
});

test('memberIdFormat: a Medicare-like payer declares MBIs; any other value is refused with the file', () => {
  const connector = { ...SOAP, username: { env: 'ACME_USER' }, password: { env: 'ACME_PASSWORD' } };
  const load = (payers: unknown[]) =>
    loadPayerEntries(settings({ payersFile: payersFile({ payers }), sandboxEnabled: false }), {
      sandbox,
      factories: recordingFactories().factories,
      secrets: { env: { ACME_USER: 'acme-user', ACME_PASSWORD: 'p' } },
    });
  const entries = load([
    { ...ACME, id: 'MEDICARE-TX', aliases: [], connector, memberIdFormat: 'mbi' },
    { ...ACME, id: 'ACME2', aliases: [], connector },
  ]);
  assert.deepEqual(
    entries.map((e) => [e.tradingPartnerServiceId, e.memberIdFormat]),
    [
      ['MEDICARE-TX', 'mbi'],
      ['ACME2', undefined],
    ],
  );
  assert.throws(() => load([{ ...ACME, connector, memberIdFormat: 'hicn' }]), /memberIdFormat/);
});
