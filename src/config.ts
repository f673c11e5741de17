/**
 * Configuration from the environment, validated once at start-up with one schema.
 * The README's configuration table is generated from CONFIG_DOCS (npm run docs:config).
 */
import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';

const Int = (min: number, max: number) => Type.Integer({ minimum: min, maximum: max });

export const ConfigSchema = Type.Object({
  env: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')]),
  port: Int(0, 65535),
  host: Type.String({ minLength: 1 }),
  publicUrl: Type.Optional(Type.String()),
  dataDir: Type.String({ minLength: 1 }),
  databaseUrl: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  databaseSchema: Type.String({ pattern: '^[a-z_][a-z0-9_]{0,62}$' }),
  dbRequestBudgetMs: Int(100, 600_000),
  secretKey: Type.Optional(Type.String({ minLength: 32 })),
  sandboxLatencyMs: Type.Optional(Int(0, 600_000)),
  allowPrivateWebhooks: Type.Boolean(),
  payerTimeoutMs: Int(10, 600_000),
  checkMaxAttempts: Int(1, 100),
  checkRetryBaseMs: Int(1, 3_600_000),
  payerConcurrency: Int(1, 1024),
  payerBreakerFailures: Int(1, 1000),
  payerBreakerOpenMs: Int(10, 3_600_000),
  payerOutageWaitMs: Int(0, 7 * 24 * 3_600_000),
  workerConcurrency: Int(1, 1024),
  workerPollMs: Int(10, 60_000),
  leaseMs: Int(100, 3_600_000),
  rateLimitSubmit: Int(1, 1_000_000),
  rateLimitStatus: Int(1, 1_000_000),
  metricsToken: Type.Optional(Type.String({ minLength: 16 })),
  webhookTimeoutMs: Int(100, 120_000),
  retentionDays: Int(1, 3650),
  logLevel: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
});
export type Config = Static<typeof ConfigSchema>;

interface EnvVar {
  name: string;
  key: keyof Config;
  kind: 'string' | 'int' | 'bool';
  default?: string;
  doc: string;
}

export const CONFIG_DOCS: EnvVar[] = [
  {
    name: 'ELIG_ENV',
    key: 'env',
    kind: 'string',
    default: 'development',
    doc: '`development`, `production` or `test`. Production requires `ELIG_SECRET_KEY` and refuses `ELIG_ALLOW_PRIVATE_WEBHOOKS`.',
  },
  { name: 'PORT', key: 'port', kind: 'int', default: '8080', doc: 'HTTP port (0 = any free port).' },
  {
    name: 'HOST',
    key: 'host',
    kind: 'string',
    default: '127.0.0.1',
    doc: 'Interface to bind; `0.0.0.0` to accept outside connections.',
  },
  {
    name: 'PUBLIC_URL',
    key: 'publicUrl',
    kind: 'string',
    doc: 'Base URL printed and used in portal links (default `http://HOST:PORT`).',
  },
  {
    name: 'DATA_DIR',
    key: 'dataDir',
    kind: 'string',
    default: './data',
    doc: 'Embedded PGlite store directory (used when `DATABASE_URL` is not set).',
  },
  {
    name: 'DATABASE_URL',
    key: 'databaseUrl',
    kind: 'string',
    doc: 'PostgreSQL connection string; switches from PGlite to PostgreSQL.',
  },
  {
    name: 'DATABASE_SCHEMA',
    key: 'databaseSchema',
    kind: 'string',
    default: 'public',
    doc: 'PostgreSQL schema holding the tables (created if missing).',
  },
  {
    name: 'DB_REQUEST_BUDGET_MS',
    key: 'dbRequestBudgetMs',
    kind: 'int',
    default: '3000',
    doc: 'PostgreSQL: how long one query or transaction may take, from waiting for a connection to the last answer, before it is given up (the API answers 503 with `Retry-After`; the server cancels the statement). Also bounds `/readyz`. Migrations are not bounded.',
  },
  {
    name: 'ELIG_SECRET_KEY',
    key: 'secretKey',
    kind: 'string',
    doc: 'Master secret (>= 32 chars, e.g. `openssl rand -base64 32`): API-key pepper and webhook-secret encryption key. Outside production it is generated into `DATA_DIR/secret.key` when unset.',
  },
  {
    name: 'SANDBOX_LATENCY_MS',
    key: 'sandboxLatencyMs',
    kind: 'int',
    doc: 'Sandbox payer latency; default a random 300-1500 ms.',
  },
  {
    name: 'ELIG_ALLOW_PRIVATE_WEBHOOKS',
    key: 'allowPrivateWebhooks',
    kind: 'bool',
    default: '0',
    doc: 'Allow http and private/loopback webhook targets (local development and tests only).',
  },
  {
    name: 'PAYER_TIMEOUT_MS',
    key: 'payerTimeoutMs',
    kind: 'int',
    default: '45000',
    doc: 'Time budget of one payer call.',
  },
  {
    name: 'PAYER_CONCURRENCY',
    key: 'payerConcurrency',
    kind: 'int',
    default: '16',
    doc: 'Payer calls one worker process makes to the same payer at once; further checks wait for a slot.',
  },
  {
    name: 'PAYER_BREAKER_FAILURES',
    key: 'payerBreakerFailures',
    kind: 'int',
    default: '5',
    doc: "Consecutive transient failures (timeouts, connection errors, AAA 42/80) that open a payer's circuit breaker in a worker process.",
  },
  {
    name: 'PAYER_BREAKER_OPEN_MS',
    key: 'payerBreakerOpenMs',
    kind: 'int',
    default: '30000',
    doc: "How long an open breaker keeps a payer's checks waiting before one trial call; doubles on each re-open, up to 10 minutes.",
  },
  {
    name: 'PAYER_OUTAGE_WAIT_MS',
    key: 'payerOutageWaitMs',
    kind: 'int',
    default: '900000',
    doc: 'How long a check may wait on an open breaker (from submission) before it fails with SH02.',
  },
  {
    name: 'CHECK_MAX_ATTEMPTS',
    key: 'checkMaxAttempts',
    kind: 'int',
    default: '5',
    doc: 'Payer attempts before a check fails with SH02.',
  },
  {
    name: 'CHECK_RETRY_BASE_MS',
    key: 'checkRetryBaseMs',
    kind: 'int',
    default: '2000',
    doc: 'Base of the exponential retry backoff (with jitter) for transient payer failures.',
  },
  {
    name: 'WORKER_CONCURRENCY',
    key: 'workerConcurrency',
    kind: 'int',
    default: '32',
    doc: 'Checks one worker process runs at once.',
  },
  {
    name: 'WORKER_POLL_MS',
    key: 'workerPollMs',
    kind: 'int',
    default: '1000',
    doc: 'Polling fallback interval when no wake-up notification arrives.',
  },
  {
    name: 'LEASE_MS',
    key: 'leaseMs',
    kind: 'int',
    default: '120000',
    doc: 'How long a claimed check stays locked before another worker may take it over (must exceed PAYER_TIMEOUT_MS).',
  },
  {
    name: 'RATE_LIMIT_SUBMIT',
    key: 'rateLimitSubmit',
    kind: 'int',
    default: '20',
    doc: 'Submits per second per API key (bucket of twice that). Enforced per process.',
  },
  {
    name: 'RATE_LIMIT_STATUS',
    key: 'rateLimitStatus',
    kind: 'int',
    default: '100',
    doc: 'Status reads per second per API key (bucket of twice that). Enforced per process.',
  },
  {
    name: 'METRICS_TOKEN',
    key: 'metricsToken',
    kind: 'string',
    doc: 'When set, `/metrics` requires `Authorization: Bearer <token>`.',
  },
  {
    name: 'WEBHOOK_TIMEOUT_MS',
    key: 'webhookTimeoutMs',
    kind: 'int',
    default: '15000',
    doc: 'Time limit of one webhook delivery attempt.',
  },
  {
    name: 'RETENTION_DAYS',
    key: 'retentionDays',
    kind: 'int',
    default: '30',
    doc: 'Days after which raw X12 and the PHI of finished checks are purged (id, status, times and codes stay).',
  },
  { name: 'LOG_LEVEL', key: 'logLevel', kind: 'string', default: 'info', doc: 'pino log level.' },
];

const compiled = Compile(ConfigSchema);

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const raw: Record<string, unknown> = { databaseSchema: 'public' };
  const problems: string[] = [];
  for (const v of CONFIG_DOCS) {
    const text = env[v.name] ?? v.default;
    if (text === undefined || text === '') continue;
    if (v.kind === 'int') {
      if (!/^-?\d+$/.test(text.trim())) problems.push(`${v.name} must be an integer`);
      raw[v.key] = Number.parseInt(text, 10);
    } else if (v.kind === 'bool') {
      if (!/^(0|1|true|false)$/i.test(text.trim())) problems.push(`${v.name} must be 0, 1, true or false`);
      raw[v.key] = /^(1|true)$/i.test(text.trim());
    } else {
      raw[v.key] = text;
    }
  }
  const config = { ...raw, ...overrides } as Config;
  for (const e of compiled.Errors(config)) problems.push(`${nameOf(e.instancePath)} ${e.message}`);
  if (
    config.leaseMs !== undefined &&
    config.payerTimeoutMs !== undefined &&
    config.leaseMs <= config.payerTimeoutMs
  ) {
    problems.push('LEASE_MS must be greater than PAYER_TIMEOUT_MS');
  }
  if (config.env === 'production' && !config.secretKey)
    problems.push('ELIG_SECRET_KEY is required in production');
  if (config.env === 'production' && config.allowPrivateWebhooks) {
    problems.push('ELIG_ALLOW_PRIVATE_WEBHOOKS cannot be enabled in production');
  }
  if (problems.length)
    throw new ConfigError(`Invalid configuration:\n  - ${[...new Set(problems)].join('\n  - ')}`);
  return config;
}

function nameOf(instancePath: string): string {
  const key = instancePath.replace(/^\//, '');
  return CONFIG_DOCS.find((v) => v.key === key)?.name ?? key;
}
