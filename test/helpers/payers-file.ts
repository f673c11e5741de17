/**
 * A payers file with one entry per connector type, its secrets by reference (environment variables and a
 * file), and connector factories that use those secrets and answer through the sandbox. Tests grep every
 * output for `secrets` and `urls`: none may appear.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PayerAuthenticationError, type PayerConnector } from '../../src/payers/connector.ts';
import type { ConnectorDeps, ConnectorFactories } from '../../src/payers/connectors.ts';
import type { SecretRef } from '../../src/payers/directory-schema.ts';
import { createSandboxConnector } from '../../src/payers/sandbox/index.ts';

export interface PayersFixture {
  path: string;
  dir: string;
  env: Record<string, string>;
  /** Every secret value the file references. */
  secrets: string[];
  /** Every gateway URL in the file. */
  urls: string[];
  factories: ConnectorFactories;
}

export function payersFixture(): PayersFixture {
  const dir = mkdtempSync(join(tmpdir(), 'elig-payers-'));
  const keyFile = join(dir, 'stedi.key');
  const secrets = {
    coreUser: 'core-user-7f3a9c',
    corePassword: 'core-pass-Qm8v2LxT',
    stediKey: 'stedi-live-key-Zx81PqW3',
    optumId: 'optum-client-id-44kd',
    optumSecret: 'optum-client-secret-9Vn2',
  };
  writeFileSync(keyFile, `${secrets.stediKey}\n`);
  const urls = [
    'https://core-gateway.invalid/CORE/RealTime',
    'https://x12-gateway.invalid/x12',
    'https://optum-gateway.invalid/eligibility/x12',
    'https://optum-auth.invalid/oauth/token',
  ];
  const file = {
    payers: [
      {
        id: 'ACME',
        name: 'Acme Health Plan',
        payerId: 'ACME01',
        aliases: ['87726', 'ACME-OLD'],
        connector: {
          type: 'caqh-core-soap',
          url: urls[0],
          username: { env: 'TEST_CORE_USER' },
          password: { env: 'TEST_CORE_PASSWORD' },
        },
      },
      {
        id: 'CIGNA-STEDI',
        name: 'Cigna (via clearinghouse)',
        payerId: '62308',
        connector: { type: 'x12-json', url: urls[1], auth: { type: 'api-key', key: { file: keyFile } } },
      },
      {
        id: 'LOCKEDOUT',
        name: 'Locked Out Mutual',
        payerId: 'LOCKED',
        connector: {
          type: 'x12-json',
          url: urls[2],
          auth: {
            type: 'oauth2-client-credentials',
            tokenUrl: urls[3],
            clientId: { env: 'TEST_OPTUM_ID' },
            clientSecret: { env: 'TEST_OPTUM_SECRET' },
          },
        },
      },
    ],
  };
  const path = join(dir, 'payers.json');
  writeFileSync(path, JSON.stringify(file, null, 2));
  return {
    path,
    dir,
    env: {
      TEST_CORE_USER: secrets.coreUser,
      TEST_CORE_PASSWORD: secrets.corePassword,
      TEST_OPTUM_ID: secrets.optumId,
      TEST_OPTUM_SECRET: secrets.optumSecret,
    },
    secrets: Object.values(secrets),
    urls,
    factories: testFactories(),
  };
}

const sandbox = createSandboxConnector({ latencyMs: 0 });

/**
 * Connectors that hold their credentials the way real ones do, answer through the sandbox, and — the
 * oauth2 one — are refused with a message that quotes the credential, as a careless gateway client might.
 */
function testFactories(): ConnectorFactories {
  const make =
    (name: string, refs: (config: any) => SecretRef[], refused = false) =>
    (config: unknown, deps: ConnectorDeps): PayerConnector => {
      const credential = refs(config)
        .map((r) => deps.secret(r))
        .join(':');
      return {
        name,
        async send(x12, options) {
          options.onExchangeId?.(`${name}-exchange-1`);
          if (refused) throw new PayerAuthenticationError(`HTTP 401 for ${credential}`);
          return sandbox.send(x12, options);
        },
      };
    };
  return {
    'caqh-core-soap': make('caqh-core-soap', (c) => [c.username, c.password]),
    'caqh-core-mime': make('caqh-core-mime', (c) => [c.username, c.password]),
    'x12-json': (config, deps) =>
      config.auth.type === 'api-key'
        ? make('x12-json', (c) => [c.auth.key])(config, deps)
        : make('x12-json', (c) => [c.auth.clientId, c.auth.clientSecret], true)(config, deps),
  };
}
