/**
 * Configuration from the environment, validated once at start-up with one schema. Each setting is written
 * once, in the schema: its type and bounds, its environment variable (`env`), its default and its
 * description. The variable list, the loader and the README's configuration table (npm run docs:config)
 * are all read from it. A `.env` file in the working directory is read too; the process environment wins.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import Type, { type Static, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { secretKeyWeakness } from './secret-strength.ts';

interface Setting {
  /** The environment variable that sets it. */
  env: string;
  default?: string | number | boolean | string[];
  description: string;
}

const Int = (min: number, max: number, setting: Setting) =>
  Type.Integer({ minimum: min, maximum: max, ...setting });

export const ConfigSchema = Type.Object({
  env: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')], {
    env: 'ELIG_ENV',
    default: 'development',
    description:
      '`development`, `production` or `test`. Production requires `ELIG_SECRET_KEY` and refuses `ELIG_ALLOW_PRIVATE_WEBHOOKS`.',
  }),
  port: Int(0, 65535, { env: 'PORT', default: 8080, description: 'HTTP port (0 = any free port).' }),
  host: Type.String({
    minLength: 1,
    env: 'HOST',
    default: '127.0.0.1',
    description: 'Interface to bind; `0.0.0.0` to accept outside connections.',
  }),
  // An origin, optionally with a path prefix; never a query or fragment: links are PUBLIC_URL + path.
  publicUrl: Type.Optional(
    Type.String({
      pattern: '^https?://[^\\s/?#]+[^\\s?#]*$',
      env: 'PUBLIC_URL',
      description:
        "Base URL users reach the service at (`https://…`), printed and used in every portal link (never the request's Host header); https also turns on HSTS for the portal. Default `http://HOST:PORT`; set it on PostgreSQL.",
    }),
  ),
  dataDir: Type.String({
    minLength: 1,
    env: 'DATA_DIR',
    default: './data',
    description: 'Embedded PGlite store directory (used when `DATABASE_URL` is not set).',
  }),
  databaseUrl: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://',
      env: 'DATABASE_URL',
      description: 'PostgreSQL connection string; switches from PGlite to PostgreSQL.',
    }),
  ),
  databaseSchema: Type.String({
    pattern: '^[a-z_][a-z0-9_]{0,62}$',
    env: 'DATABASE_SCHEMA',
    default: 'public',
    description: 'PostgreSQL schema holding the tables (created if missing).',
  }),
  dbRequestBudgetMs: Int(100, 600_000, {
    env: 'DB_REQUEST_BUDGET_MS',
    default: 3000,
    description:
      'PostgreSQL: how long one query or transaction may take, from waiting for a connection to the last answer, before it is given up (the API answers 503 with `Retry-After`; the server cancels the statement). Also bounds `/readyz`. Migrations are not bounded.',
  }),
  secretKey: Type.Optional(
    Type.String({
      minLength: 32,
      env: 'ELIG_SECRET_KEY',
      description:
        'Master secret (>= 32 chars, e.g. `openssl rand -base64 32`): API-key pepper and webhook-secret encryption key. Production refuses keys that look guessable (runs, sequences, a repeated unit, few distinct characters, under ~128 bits estimated). Outside production it is generated into `DATA_DIR/secret.key` when unset.',
    }),
  ),
  sandboxLatencyMs: Type.Optional(
    Int(0, 600000, {
      env: 'SANDBOX_LATENCY_MS',
      description: 'Sandbox payer latency; default a random 300-1500 ms.',
    }),
  ),
  sandboxEnabled: Type.Boolean({
    env: 'SANDBOX_ENABLED',
    default: true,
    description: 'Offer the built-in `SANDBOX` payer; `0` removes it from the directory (production).',
  }),
  payersFile: Type.Optional(
    Type.String({
      minLength: 1,
      env: 'PAYERS_FILE',
      description:
        'JSON payer directory added to the sandbox (docs/payers.md); secrets in it are `{"env"}`/`{"file"}` references. Checked at start.',
    }),
  ),
  x12SenderId: Type.String({
    pattern: '^[A-Za-z0-9 .&/()#-]{1,15}$',
    env: 'X12_SENDER_ID',
    default: 'ELIGSVC',
    description:
      'Submitter id of the 270 (ISA06/GS02), as your clearinghouse or payer assigned it; a payer entry may override it.',
  }),
  x12SenderQualifier: Type.String({
    pattern: '^[A-Z0-9]{2}$',
    env: 'X12_SENDER_QUALIFIER',
    default: 'ZZ',
    description: 'ISA05 qualifier of the submitter id (`ZZ` mutually defined, `30` tax id, ...).',
  }),
  allowPrivateWebhooks: Type.Boolean({
    env: 'ELIG_ALLOW_PRIVATE_WEBHOOKS',
    default: false,
    description: 'Allow http and private/loopback webhook targets (local development and tests only).',
  }),
  payerTimeoutMs: Int(10, 600000, {
    env: 'PAYER_TIMEOUT_MS',
    default: 45000,
    description: 'Time budget of one payer call.',
  }),
  payerConcurrency: Int(1, 1024, {
    env: 'PAYER_CONCURRENCY',
    default: 16,
    description:
      'Payer calls one worker process makes to the same payer at once; further checks wait for a slot.',
  }),
  payerBreakerFailures: Int(1, 1000, {
    env: 'PAYER_BREAKER_FAILURES',
    default: 5,
    description:
      "Consecutive transient failures (timeouts, connection errors, AAA 42/80) that open a payer's circuit breaker in a worker process.",
  }),
  payerBreakerOpenMs: Int(10, 3600000, {
    env: 'PAYER_BREAKER_OPEN_MS',
    default: 30000,
    description:
      "How long an open breaker keeps a payer's checks waiting before one trial call; doubles on each re-open, up to 10 minutes.",
  }),
  payerOutageWaitMs: Int(0, 604800000, {
    env: 'PAYER_OUTAGE_WAIT_MS',
    default: 900000,
    description: 'How long a check may wait on an open breaker (from submission) before it fails with SH02.',
  }),
  batchRetryHours: Int(1, 72, {
    env: 'BATCH_RETRY_HOURS',
    default: 8,
    description:
      'How long a batch check whose payer is down keeps waiting and retrying (from submission) before it fails with SH02; real-time checks use PAYER_OUTAGE_WAIT_MS and CHECK_MAX_ATTEMPTS.',
  }),
  batchMaxPendingChecks: Int(1, 10_000_000, {
    env: 'BATCH_MAX_PENDING_CHECKS',
    default: 50000,
    description:
      'Batch checks an organization may have in progress at once; a batch that would exceed it is refused with 429 (batches are limited by items in flight, not requests per second).',
  }),
  discoveryMaxInquiriesPerDay: Int(1, 10_000_000, {
    env: 'DISCOVERY_MAX_INQUIRIES_PER_DAY',
    default: 500,
    description:
      "Payers an organization's insurance discoveries may ask per UTC day (each discovery asks at most 25); a discovery that would pass it is refused with 429 until the next day.",
  }),
  monitorPollMs: Int(10, 3_600_000, {
    env: 'MONITOR_POLL_MS',
    default: 30000,
    description:
      'How often each worker process looks for due monitors (recurring checks); sooner when the next one is due sooner, and at once when one is created or resumed.',
  }),
  monitorMaxPerOrganization: Int(1, 10_000_000, {
    env: 'MONITOR_MAX_PER_ORGANIZATION',
    default: 10000,
    description:
      'Monitors (recurring checks) an organization may have; creating one more is refused with 429 until some are deleted.',
  }),
  checkMaxAttempts: Int(1, 100, {
    env: 'CHECK_MAX_ATTEMPTS',
    default: 5,
    description: 'Payer attempts before a check fails with SH02.',
  }),
  checkRetryBaseMs: Int(1, 3600000, {
    env: 'CHECK_RETRY_BASE_MS',
    default: 2000,
    description: 'Base of the exponential retry backoff (with jitter) for transient payer failures.',
  }),
  workerConcurrency: Int(1, 1024, {
    env: 'WORKER_CONCURRENCY',
    default: 32,
    description: 'Checks one worker process runs at once.',
  }),
  workerPollMs: Int(10, 60000, {
    env: 'WORKER_POLL_MS',
    default: 1000,
    description: 'Polling fallback interval when no wake-up notification arrives.',
  }),
  leaseMs: Int(100, 3600000, {
    env: 'LEASE_MS',
    default: 120000,
    description:
      'How long a claimed check stays locked before another worker may take it over (must exceed PAYER_TIMEOUT_MS).',
  }),
  rateLimitSubmit: Int(1, 1000000, {
    env: 'RATE_LIMIT_SUBMIT',
    default: 20,
    description: 'Submits per second per API key (bucket of twice that). Enforced per process.',
  }),
  rateLimitSubmitPerOrganization: Int(1, 1000000, {
    env: 'RATE_LIMIT_SUBMIT_PER_ORGANIZATION',
    default: 40,
    description:
      'Submits per second per organization across all its API keys (bucket of twice that; never below RATE_LIMIT_SUBMIT). Enforced per process.',
  }),
  rateLimitStatus: Int(1, 1000000, {
    env: 'RATE_LIMIT_STATUS',
    default: 100,
    description: 'Status reads per second per API key (bucket of twice that). Enforced per process.',
  }),
  metricsToken: Type.Optional(
    Type.String({
      minLength: 16,
      env: 'METRICS_TOKEN',
      description:
        'When set, `/metrics` requires `Authorization: Bearer <token>`, and the operator scorecard API (`/operator/scorecard`) is served to this bearer token. Unset: `/metrics` is open and `/operator/scorecard` answers 404.',
    }),
  ),
  metricsPayerLabels: Int(0, 1000, {
    env: 'METRICS_PAYER_LABELS',
    default: 50,
    description:
      'Most payers metrics name in their `payer` label: with more payers in the directory, the ones with the most calls in the last day are named and the rest count as `other`.',
  }),
  operatorOrganizationId: Type.Optional(
    Type.String({
      minLength: 1,
      env: 'OPERATOR_ORGANIZATION_ID',
      description:
        "The organization whose owners are the service's operators: they see the portal's Scorecard page (payer and connection counts across every organization). Unset: no one does.",
    }),
  ),
  trustedProxies: Type.Array(Type.String({ minLength: 1 }), {
    env: 'TRUSTED_PROXIES',
    default: [],
    description:
      'Comma-separated addresses or CIDR ranges of the proxies / load balancers in front of the API (or `loopback`, `linklocal`, `uniquelocal`). Only a request from one of them has its `X-Forwarded-For` believed, so the client address (sign-in throttling) is the real one. Empty: trust none.',
  }),
  httpHeadersTimeoutMs: Int(100, 600_000, {
    env: 'HTTP_HEADERS_TIMEOUT_MS',
    default: 10_000,
    description:
      'A client must send the request line and headers within this; otherwise 408 and the connection closes (slowloris).',
  }),
  httpRequestTimeoutMs: Int(100, 3_600_000, {
    env: 'HTTP_REQUEST_TIMEOUT_MS',
    default: 30_000,
    description:
      'A client must send the whole request, headers and body, within this; otherwise 408 and the connection closes.',
  }),
  httpIdleTimeoutMs: Int(100, 3_600_000, {
    env: 'HTTP_IDLE_TIMEOUT_MS',
    default: 60_000,
    description:
      'A connection with no traffic either way for this long (e.g. a client that stops reading the answer) is closed.',
  }),
  httpKeepAliveTimeoutMs: Int(100, 3_600_000, {
    env: 'HTTP_KEEP_ALIVE_TIMEOUT_MS',
    default: 72_000,
    description:
      "How long an idle keep-alive connection waits for its next request. Behind a load balancer, keep it above the balancer's idle timeout (60 s on AWS ALB).",
  }),
  webhookTimeoutMs: Int(100, 120000, {
    env: 'WEBHOOK_TIMEOUT_MS',
    default: 15000,
    description: 'Time limit of one webhook delivery attempt.',
  }),
  retentionDays: Int(1, 3650, {
    env: 'RETENTION_DAYS',
    default: 30,
    description:
      'Days after which raw X12 and the PHI of finished checks are purged (id, status, times and codes stay).',
  }),
  logLevel: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    env: 'LOG_LEVEL',
    default: 'info',
    description: 'pino log level.',
  }),
});
export type Config = Static<typeof ConfigSchema>;

export interface ConfigVariable {
  name: string;
  key: keyof Config;
  /** `list`: comma-separated, blanks dropped; unset is an empty list. */
  kind: 'string' | 'int' | 'bool' | 'list';
  /** As written in the environment (and in the README). */
  default?: string;
  doc: string;
}

const KINDS: Record<string, ConfigVariable['kind']> = { integer: 'int', boolean: 'bool', array: 'list' };

/** Every variable, in the schema's order, as the loader reads it and the README lists it. */
export const CONFIG_VARIABLES: readonly ConfigVariable[] = Object.entries(ConfigSchema.properties).map(
  ([key, schema]: [string, TSchema & Partial<Setting> & { type?: string }]) => ({
    name: schema.env!,
    key: key as keyof Config,
    kind: KINDS[schema.type ?? ''] ?? 'string',
    default: schema.default === undefined ? undefined : defaultText(schema.default),
    doc: schema.description!,
  }),
);

function defaultText(value: NonNullable<Setting['default']>): string | undefined {
  if (Array.isArray(value)) return value.length ? value.join(',') : undefined;
  return typeof value === 'boolean' ? (value ? '1' : '0') : String(value);
}

const compiled = Compile(ConfigSchema);

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * The process environment, plus the variables of a `.env` file (default: in the working directory) that
 * the environment does not set, so a deployment's own variables always win over a file left beside it.
 */
export function withDotEnv(env: NodeJS.ProcessEnv, file = resolve('.env')): NodeJS.ProcessEnv {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return env;
    throw new ConfigError(`${file} exists but could not be read (${(err as NodeJS.ErrnoException).code})`);
  }
  return { ...parseEnv(text), ...env };
}

export function loadConfig(
  env: NodeJS.ProcessEnv = withDotEnv(process.env),
  overrides: Partial<Config> = {},
): Config {
  const raw: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const v of CONFIG_VARIABLES) {
    const text = env[v.name] ?? v.default;
    if (v.kind === 'list') {
      raw[v.key] = (text ?? '')
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
      continue;
    }
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
  if (typeof config.publicUrl === 'string') config.publicUrl = config.publicUrl.replace(/\/+$/, '');
  for (const e of compiled.Errors(config)) problems.push(`${nameOf(e.instancePath)} ${e.message}`);
  if (
    config.leaseMs !== undefined &&
    config.payerTimeoutMs !== undefined &&
    config.leaseMs <= config.payerTimeoutMs
  ) {
    problems.push('LEASE_MS must be greater than PAYER_TIMEOUT_MS');
  }
  if (config.httpHeadersTimeoutMs > config.httpRequestTimeoutMs) {
    problems.push('HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS');
  }
  for (const entry of config.trustedProxies ?? []) {
    if (!isProxyAddress(entry))
      problems.push(`TRUSTED_PROXIES entry "${entry}" is not an IP address, a CIDR range or a range name`);
  }
  if (config.env === 'production' && !config.secretKey)
    problems.push('ELIG_SECRET_KEY is required in production');
  const weakness = config.env === 'production' && config.secretKey && secretKeyWeakness(config.secretKey);
  if (weakness) {
    problems.push(
      `ELIG_SECRET_KEY is too predictable: it ${weakness}. Use a random key, e.g. \`openssl rand -base64 32\``,
    );
  }
  if (config.env === 'production' && config.allowPrivateWebhooks) {
    problems.push('ELIG_ALLOW_PRIVATE_WEBHOOKS cannot be enabled in production');
  }
  if (problems.length)
    throw new ConfigError(`Invalid configuration:\n  - ${[...new Set(problems)].join('\n  - ')}`);
  return config;
}

const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** What Fastify's `trustProxy` list accepts: an address, address/prefix-length, or a named range. */
function isProxyAddress(entry: string): boolean {
  if (RANGE_NAMES.has(entry)) return true;
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (!family || extra !== undefined) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d{1,3}$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
}

function nameOf(instancePath: string): string {
  const key = instancePath.replace(/^\//, '');
  return CONFIG_VARIABLES.find((v) => v.key === key)?.name ?? key;
}
