/**
 * Database schema (PostgreSQL dialect, shared by PGlite and PostgreSQL). Migrations in `drizzle/` are
 * generated from this file with `npm run db:generate` and committed.
 */
import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

export const organizations = pgTable('organizations', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  eligibilityEnabled: boolean('eligibility_enabled').notNull().default(true),
  webhookUrl: text('webhook_url'),
  /** AES-256-GCM sealed signing secret (never plaintext). */
  webhookSecret: text('webhook_secret'),
  webhookPreviousSecret: text('webhook_previous_secret'),
  webhookPreviousSecretExpiresAt: timestamp('webhook_previous_secret_expires_at', { withTimezone: true }),
  createdAt: createdAt(),
});

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    name: text('name').notNull(),
    /** The readable, non-secret start of the key, used to look it up (e.g. `elig_test_ab12cd34`). */
    prefix: text('prefix').notNull(),
    /** HMAC-SHA256(pepper, key), hex. */
    hash: text('hash').notNull(),
    scopes: text('scopes').array().notNull(),
    createdAt: createdAt(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('api_keys_prefix_idx').on(t.prefix), index('api_keys_org_idx').on(t.organizationId)],
);

export const checks = pgTable(
  'checks',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    status: text('status').notNull(),
    tradingPartnerServiceId: text('trading_partner_service_id').notNull(),
    /** The submitted request (PHI). */
    request: jsonb('request').notNull(),
    /** The full response body once COMPLETED/FAILED (PHI), exactly as served and sent. */
    result: text('result'),
    /** Codes only (no PHI): outcome summary for lists and metrics. */
    outcomeCode: text('outcome_code'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    lockedUntil: timestamp('locked_until', { withTimezone: true }),
    lockedBy: text('locked_by'),
    lastError: text('last_error'),
    idempotencyKey: text('idempotency_key'),
    requestHash: text('request_hash'),
    createdAt: createdAt(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
    purgedAt: timestamp('purged_at', { withTimezone: true }),
  },
  (t) => [
    index('checks_due_idx').on(t.nextAttemptAt).where(sql`status = 'IN_PROGRESS'`),
    index('checks_org_created_idx').on(t.organizationId, t.createdAt),
    // Retention finds the next batch to purge without scanning the table.
    index('checks_purge_due_idx').on(t.completedAt).where(sql`purged_at IS NULL AND status <> 'IN_PROGRESS'`),
    uniqueIndex('checks_idempotency_idx').on(t.organizationId, t.idempotencyKey),
  ],
);

/** Transactional outbox: one event per check, written in the same transaction as its final status. */
export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    checkId: text('check_id').references(() => checks.id),
    kind: text('kind').notNull().default('eligibility.check.completed'),
    /** The exact bytes sent on every attempt (serialized once). */
    body: text('body').notNull(),
    url: text('url').notNull(),
    state: text('state').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    lockedUntil: timestamp('locked_until', { withTimezone: true }),
    lockedBy: text('locked_by'),
    createdAt: createdAt(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('webhook_events_check_idx').on(t.checkId),
    index('webhook_events_due_idx').on(t.nextAttemptAt).where(sql`state = 'pending'`),
    index('webhook_events_org_idx').on(t.organizationId, t.createdAt),
  ],
);

export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: text('id').primaryKey(),
    eventId: text('event_id')
      .notNull()
      .references(() => webhookEvents.id),
    attemptNumber: integer('attempt_number').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    outcome: text('outcome').notNull(),
    responseStatus: integer('response_status'),
    latencyMs: integer('latency_ms'),
    error: text('error'),
    /**
     * The first 1 KB of the receiver's answer, for the delivery log. The receiver's text, so it may echo
     * the body (PHI): purged with the check, never logged.
     */
    responseSnippet: text('response_snippet'),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
  },
  (t) => [index('webhook_attempts_event_idx').on(t.eventId, t.attemptNumber)],
);

export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    email: text('email').notNull(),
    passwordHash: text('password_hash'),
    role: text('role').notNull().default('member'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('users_email_idx').on(t.email)],
);

/** One-time links (first sign-in, invites, password resets); only the token's hash is stored. */
export const loginTokens = pgTable('login_tokens', {
  tokenHash: text('token_hash').primaryKey(),
  userId: text('user_id')
    .notNull()
    .references(() => users.id),
  purpose: text('purpose').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true }),
  createdAt: createdAt(),
});

export const sessions = pgTable('sessions', {
  /** SHA-256 of the session cookie value. */
  idHash: text('id_hash').primaryKey(),
  userId: text('user_id')
    .notNull()
    .references(() => users.id),
  csrfToken: text('csrf_token').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  createdAt: createdAt(),
});

/**
 * Sign-in throttle: one row per account or client address that tried to sign in lately. `key` is an HMAC
 * of the normalised email or of the address (never the email or address itself); `attempts` counts the
 * attempts since the last success, and `blocked_until` is when the next one may start (null: now).
 */
export const loginAttempts = pgTable(
  'login_attempts',
  {
    key: text('key').primaryKey(),
    attempts: integer('attempts').notNull(),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true }).notNull(),
    blockedUntil: timestamp('blocked_until', { withTimezone: true }),
  },
  // Pruning finds forgotten rows without scanning the table.
  (t) => [index('login_attempts_last_attempt_idx').on(t.lastAttemptAt)],
);

/**
 * Readiness writes here (one row, upserted): a committed write is the only proof that the database can
 * still write (read-only after a failover, a failed WAL write). See src/store/readiness.ts.
 */
export const heartbeat = pgTable('heartbeat', {
  id: integer('id').primaryKey(),
  probedAt: timestamp('probed_at', { withTimezone: true }).notNull(),
});
