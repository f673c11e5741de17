/**
 * Starts the real service for a test file: on PGlite in a temporary data directory (a copy of the migrated
 * template, see pglite-template.ts), or, when DATABASE_URL is set, on PostgreSQL in a fresh schema that is
 * dropped afterwards. Logs are captured in memory so tests can assert on them (PHI never appears).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { type Config, loadConfig } from '../../src/config.ts';
import { type Roles, type Service, type StartOptions, startService } from '../../src/server.ts';
import { pgliteDataPath } from '../../src/store/open.ts';
import { eventually } from './eventually.ts';
import { copyPgliteTemplate, testDataRoot } from './pglite-template.ts';

export const SANDBOX_PROVIDER = { organizationName: 'Test Clinic', npi: '1234567893' };

export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
  get text(): string {
    return this.lines.join('\n');
  }
}

export interface TestService {
  service: Service;
  url: string;
  config: Config;
  logs: LogCapture;
  apiKey: string;
  organizationId: string;
  stop(): Promise<void>;
}

/**
 * A test configuration with its own store. On PGlite the data directory starts as a copy of the migrated
 * template: an empty store as far as the service can tell (no organization yet), without paying initdb.
 * `emptyDataDir` leaves it truly empty, for tests of creating a new store.
 */
export function testConfig(
  overrides: Partial<Config> = {},
  options: { emptyDataDir?: boolean } = {},
): Config {
  const dataDir = mkdtempSync(join(testDataRoot(), 'elig-test-'));
  const schema = process.env.DATABASE_URL
    ? `t_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
    : 'public';
  if (!process.env.DATABASE_URL && !options.emptyDataDir) copyPgliteTemplate(pgliteDataPath(dataDir));
  return loadConfig(
    {
      ELIG_ENV: 'test',
      PORT: '0',
      DATA_DIR: dataDir,
      SANDBOX_LATENCY_MS: '0',
      PAYER_TIMEOUT_MS: '2000',
      LEASE_MS: '5000',
      CHECK_RETRY_BASE_MS: '20',
      CHECK_MAX_ATTEMPTS: '3',
      WORKER_POLL_MS: '200',
      LOG_LEVEL: 'info',
      ELIG_ALLOW_PRIVATE_WEBHOOKS: '1',
      RATE_LIMIT_SUBMIT: '100000',
      RATE_LIMIT_STATUS: '100000',
      ...(process.env.DATABASE_URL
        ? { DATABASE_URL: process.env.DATABASE_URL, DATABASE_SCHEMA: schema }
        : {}),
    },
    overrides,
  );
}

export async function dropTestSchema(config: Config): Promise<void> {
  if (!config.databaseUrl || config.databaseSchema === 'public') return;
  const client = new pg.Client({ connectionString: config.databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${config.databaseSchema}" CASCADE`);
  } finally {
    await client.end();
  }
}

export async function startTestService(
  options: { config?: Partial<Config>; roles?: Roles } & Omit<StartOptions, 'roles' | 'logDestination'> = {},
): Promise<TestService> {
  const config = testConfig(options.config);
  const logs = new LogCapture();
  const service = await startService(config, {
    ...options,
    roles: options.roles ?? { api: true, worker: true },
    logDestination: logs,
  });
  const boot = service.bootstrap;
  if (!boot) throw new Error('test service expected an empty store');
  return {
    service,
    url: service.url!,
    config,
    logs,
    apiKey: boot.apiKey,
    organizationId: boot.organizationId,
    async stop() {
      await service.stop();
      await dropTestSchema(config);
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

export interface Client {
  post(
    path: string,
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; headers: Headers }>;
  get(
    path: string,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; headers: Headers }>;
}

export function client(url: string, key?: string): Client {
  const auth: Record<string, string> = key ? { authorization: `Key ${key}` } : {};
  const parse = async (res: Response) => {
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: res.status, body: body as any, headers: res.headers };
  };
  return {
    async post(path, body, headers = {}) {
      const res = await fetch(url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth, ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return parse(res);
    },
    async get(path, headers = {}) {
      return parse(await fetch(url + path, { headers: { ...auth, ...headers } }));
    },
  };
}

export function sandboxRequest(
  member: { memberId: string; firstName: string; lastName: string; dateOfBirth: string },
  extra: object = {},
) {
  return { tradingPartnerServiceId: 'SANDBOX', provider: SANDBOX_PROVIDER, subscriber: member, ...extra };
}

/** Polls the status operation until the check leaves IN_PROGRESS. */
export async function waitForResult(c: Client, id: string, timeoutMs = 20_000): Promise<any> {
  return eventually(
    async () => {
      const res = await c.get(`/api/eligibility/${id}/status`);
      if (res.status !== 200) throw new Error(`status answered ${res.status}`);
      if (res.body.status === 'IN_PROGRESS') throw new Error('still IN_PROGRESS');
      return res.body;
    },
    { timeoutMs, intervalMs: 25, what: `check ${id} finishing` },
  );
}

/** Submits a check over HTTP, asserts the 202, and waits for it to finish: the 202 body and the result. */
export async function submitAndWait(c: Client, body: object): Promise<{ accepted: any; result: any }> {
  const accepted = await c.post('/api/eligibility', body);
  assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
  return { accepted: accepted.body, result: await waitForResult(c, accepted.body.id) };
}
