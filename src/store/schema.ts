/**
 * Database schema (PostgreSQL dialect, shared by PGlite and PostgreSQL). Migrations in `drizzle/` are
 * generated from this file with `npm run db:generate` and committed.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { EligibilityCheckRequest, StoredCheckRequest } from '../contract/check-request.ts';
import type { RequestCorrection } from '../contract/check-response.ts';
import type { PricedCharge } from '../contract/estimate.ts';
import type { CoverageChange } from '../contract/webhook-events.ts';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

export const organizations = pgTable('organizations', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  eligibilityEnabled: boolean('eligibility_enabled').notNull().default(true),
  /** IANA zone the portal shows times in (e.g. America/Chicago); null: the browser's own zone. */
  timeZone: text('time_zone'),
  webhookUrl: text('webhook_url'),
  /** AES-256-GCM sealed signing secret (never plaintext). */
  webhookSecret: text('webhook_secret'),
  webhookPreviousSecret: text('webhook_previous_secret'),
  webhookPreviousSecretExpiresAt: timestamp('webhook_previous_secret_expires_at', { withTimezone: true }),
  /** The event types its endpoint receives (src/contract/webhook-events.ts); null: all of them. */
  webhookEventTypes: text('webhook_event_types').array(),
  /**
   * The organization's default `reuseWithinHours` for submits that do not say (issue 17 section 2); null:
   * off. Set by an owner on the portal's organization page.
   */
  reuseWithinHours: integer('reuse_within_hours'),
  /**
   * The providers the portal's run-a-check form offers (name and NPI, at most one the default), kept by
   * owners on the organization page (src/tenancy/providers.ts); empty: staff type the provider each time.
   */
  providers: jsonb('providers')
    .$type<{ name: string; npi: string; isDefault: boolean }[]>()
    .notNull()
    .default([]),
  /**
   * The payers (directory ids) an insurance discovery asks when its request names none (docs/discovery.md),
   * kept by owners on the organization page; null: every directory payer that takes demographic searches.
   */
  discoveryPayers: text('discovery_payers').array(),
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

/**
 * A batch of checks submitted in one request (issue 17). The counters are kept by the finishing
 * transaction of each item (src/store/queue/finish-batch-item.ts): `pending` reaching 0 is what closes the
 * batch, exactly once, and the others make the batch's counts a one-row read.
 */
export const batches = pgTable(
  'batches',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    name: text('name'),
    /** Checks accepted; `rejected` items never became checks. */
    total: integer('total').notNull(),
    rejected: integer('rejected').notNull().default(0),
    pending: integer('pending').notNull(),
    completed: integer('completed').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    active: integer('active').notNull().default(0),
    inactive: integer('inactive').notNull().default(0),
    undetermined: integer('undetermined').notNull().default(0),
    idempotencyKey: text('idempotency_key'),
    requestHash: text('request_hash'),
    createdAt: createdAt(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (t) => [
    index('batches_org_created_idx').on(t.organizationId, t.createdAt),
    uniqueIndex('batches_idempotency_idx').on(t.organizationId, t.idempotencyKey),
  ],
);

/**
 * An insurance discovery (docs/discovery.md): one demographic inquiry (a check without a member id) per
 * candidate payer, linked by `checks.discovery_id`. No PHI here: the patient is in each linked check's
 * request. `pending` is kept by each inquiry's finishing transaction (src/store/queue/finish-discovery-item.ts):
 * reaching 0 completes the discovery and writes its `discovery.completed` event, exactly once. `asked`
 * counts toward the organization's daily cap (DISCOVERY_MAX_INQUIRIES_PER_DAY).
 */
export const discoveries = pgTable(
  'discoveries',
  {
    /** A UUIDv7. */
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    /** IN_PROGRESS, then COMPLETED once every inquiry is final. */
    status: text('status').notNull().default('IN_PROGRESS'),
    /** Payers asked (inquiries made); `answered` of them are final, `found` of those found the patient. */
    asked: integer('asked').notNull(),
    answered: integer('answered').notNull().default(0),
    found: integer('found').notNull().default(0),
    pending: integer('pending').notNull(),
    createdAt: createdAt(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  // The daily cap sums `asked` over an organization's discoveries of the day; the list pages newest first.
  (t) => [index('discoveries_org_created_idx').on(t.organizationId, t.createdAt)],
);

/**
 * A recurring check (issue 17 section 3): the check body it submits and its schedule, `every_days` days or
 * once before each appointment of `dates`. The scheduler (src/store/queue/claim-monitors.ts) creates each
 * due run as an ordinary check and advances `next_run_at` in the same transaction, so a run happens once
 * however many worker processes poll. Holds PHI (the subscriber) for as long as the monitor exists;
 * deleting a monitor deletes the row, and its checks keep their own copy under retention.
 */
export const monitors = pgTable(
  'monitors',
  {
    /** `mon_` + a UUIDv7. */
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    /** active | paused | completed (a dates monitor whose last appointment has been checked). */
    status: text('status').notNull().default('active'),
    tradingPartnerServiceId: text('trading_partner_service_id').notNull(),
    /** The check body each run submits (PHI), as repaired at creation, without a date of service. */
    request: jsonb('request').$type<EligibilityCheckRequest>().notNull(),
    /** Run every this many days (null: a dates monitor). */
    everyDays: integer('every_days'),
    /** Appointment dates (YYYYMMDD, ascending); each is checked once, with that date of service. */
    dates: text('dates').array(),
    /** The latest appointment date already checked (dates monitors); later dates are still to come. */
    checkedThrough: text('checked_through'),
    /** When the next run is due; null once completed. */
    nextRunAt: timestamp('next_run_at', { withTimezone: true }),
    lastRunAt: timestamp('last_run_at', { withTimezone: true }),
    runs: integer('runs').notNull().default(0),
    /**
     * The repairs made to the request at creation (RequestCorrection[]; null: none): each run's check
     * carries them, so its result has the REQUEST_CORRECTED warning like a submitted check's.
     */
    requestCorrections: jsonb('request_corrections').$type<RequestCorrection[]>(),
    /** The create's Idempotency-Key, if sent: the same key and body within 24 h answer this monitor again. */
    idempotencyKey: text('idempotency_key'),
    /** Hash of the create body as sent (checks/submit.ts requestHash), to tell a replay from a conflict. */
    requestHash: text('request_hash'),
    createdAt: createdAt(),
  },
  (t) => [
    index('monitors_due_idx').on(t.nextRunAt).where(sql`status = 'active'`),
    index('monitors_org_idx').on(t.organizationId, t.id),
    uniqueIndex('monitors_idempotency_idx').on(t.organizationId, t.idempotencyKey),
  ],
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
    /**
     * The submitted request (PHI), as repaired at submission (checks/request-repair.ts). A purged check
     * keeps only its `tradingPartnerServiceId` (src/store/queue/purge-checks.ts). A discovery's inquiry has
     * no member id.
     */
    request: jsonb('request').$type<StoredCheckRequest>().notNull(),
    /** The repairs made to the request (fields and kinds, no values); null: none. */
    requestCorrections: jsonb('request_corrections').$type<RequestCorrection[]>(),
    /**
     * The charges to estimate (`encounter.charges`), priced at submission (fee schedule amounts filled in);
     * the estimate is computed from them when the check completes (docs/estimates.md). Null: none.
     */
    charges: jsonb('charges').$type<PricedCharge[]>(),
    /** The full response body once COMPLETED/FAILED (PHI), exactly as served and sent. */
    result: text('result'),
    /** Codes only (no PHI): outcome summary for lists and metrics. */
    outcomeCode: text('outcome_code'),
    /**
     * The verdict's status (ACTIVE, INACTIVE, UNDETERMINED, FAILED) once finished, copied from the result
     * body's `verdict` so the portal can filter on it; null while IN_PROGRESS. A code, not PHI.
     */
    verdict: text('verdict'),
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
    /** The batch it came in (null: a single submit) and its position in the batch's request. */
    batchId: text('batch_id').references(() => batches.id),
    batchIndex: integer('batch_index'),
    /**
     * 0: interactive (a person or system waits for it), claimed first; above 0: background work (batch
     * items), claimed fairly across organizations with what is left (src/store/queue/claim.ts).
     */
    priority: integer('priority').notNull().default(0),
    /**
     * How old (hours) a completed check of the same question may be and still answer this one without a
     * payer call: the submit's `reuseWithinHours`, else the organization's default at submission; null or
     * 0: never reused (src/checks/check-history.ts).
     */
    reuseWithinHours: integer('reuse_within_hours'),
    /**
     * Keyed hashes (HMAC, never the values) of the patient's normalized identity with the payer, and of that
     * plus provider NPI, service types and date of service: the lookups of coverage.changed and of reuse
     * (src/checks/patient-identity.ts). Written when the check finishes; null on older checks (no backfill)
     * and on purged ones.
     */
    patientKey: text('patient_key'),
    reuseKey: text('reuse_key'),
    /** The check whose result this one reused (no payer call was made); null: the payer answered. */
    reusedFrom: text('reused_from'),
    /**
     * The earlier completed check of the same patient this one was compared with when it finished, and
     * the changes found (`CoverageChange[]`, PHI like the result); null when nothing changed.
     */
    comparedWith: text('compared_with'),
    coverageChanges: jsonb('coverage_changes').$type<CoverageChange[]>(),
    /** The monitor whose run this check is (null: submitted by a client); kept as null when it is deleted. */
    monitorId: text('monitor_id').references(() => monitors.id, { onDelete: 'set null' }),
    /**
     * The connection the payer is asked through (its first), as the directory named it when the check was
     * taken in; '' for a payer without connections (the sandbox, inline connectors). Only scheduling reads
     * it: the claim shares work round-robin across each organization's connections (queue/claim.ts), so a
     * flood through one clearinghouse account never queues the checks of another in front of it.
     */
    connection: text('connection').notNull().default(''),
    /**
     * The insurance discovery this check is an inquiry of (a demographic search: no member id in its
     * request); null: an ordinary check. Such a check writes no `eligibility.completed` event (its
     * discovery's `discovery.completed` reports it) and, unless it found coverage, is left out of the list.
     */
    discoveryId: text('discovery_id').references(() => discoveries.id),
  },
  (t) => [
    index('checks_due_idx').on(t.priority, t.nextAttemptAt).where(sql`status = 'IN_PROGRESS'`),
    index('checks_background_due_idx')
      .on(t.organizationId, t.connection, t.nextAttemptAt)
      .where(sql`status = 'IN_PROGRESS' AND priority > 0`),
    // The same for interactive checks: claimed round-robin across organizations too (queue/claim.ts).
    index('checks_interactive_due_idx')
      .on(t.organizationId, t.connection, t.nextAttemptAt)
      .where(sql`status = 'IN_PROGRESS' AND priority = 0`),
    index('checks_batch_idx').on(t.batchId, t.batchIndex),
    index('checks_discovery_idx').on(t.discoveryId).where(sql`discovery_id IS NOT NULL`),
    // A monitor's latest runs, newest first.
    index('checks_monitor_idx').on(t.monitorId, t.id),
    index('checks_org_created_idx').on(t.organizationId, t.createdAt),
    // The portal's verdict filter pages newest first within one organization and verdict.
    index('checks_org_verdict_idx').on(t.organizationId, t.verdict, t.id),
    // Retention finds the next batch to purge without scanning the table.
    index('checks_purge_due_idx').on(t.completedAt).where(sql`purged_at IS NULL AND status <> 'IN_PROGRESS'`),
    uniqueIndex('checks_idempotency_idx').on(t.organizationId, t.idempotencyKey),
    // The two history lookups (src/store/check-history.ts): the latest completed check that asked the payer,
    // of one patient or of one question, within one organization.
    index('checks_patient_history_idx')
      .on(t.organizationId, t.patientKey, t.completedAt)
      .where(sql`status = 'COMPLETED' AND reused_from IS NULL`),
    index('checks_reuse_idx')
      .on(t.organizationId, t.reuseKey, t.completedAt)
      .where(sql`status = 'COMPLETED' AND reused_from IS NULL`),
    // The portal shows a check's changes on the earlier check too.
    index('checks_compared_with_idx').on(t.comparedWith).where(sql`compared_with IS NOT NULL`),
  ],
);

/** Transactional outbox: events written in the same transaction as the fact they report. */
export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    checkId: text('check_id').references(() => checks.id),
    /** The batch a `batch.completed` event reports (null for other types). */
    batchId: text('batch_id').references(() => batches.id),
    /** The discovery a `discovery.completed` event reports (null for other types). */
    discoveryId: text('discovery_id').references(() => discoveries.id),
    /** The event type (src/contract/webhook-events.ts), or `test` for the portal's test event. */
    kind: text('kind').notNull().default('eligibility.completed'),
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
    // One event of each type per check (eligibility.completed, and later coverage.changed).
    uniqueIndex('webhook_events_check_idx').on(t.checkId, t.kind),
    uniqueIndex('webhook_events_batch_idx').on(t.batchId, t.kind),
    uniqueIndex('webhook_events_discovery_idx').on(t.discoveryId, t.kind),
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

/**
 * Invitations to an organization's team (Settings > Team). A row is what the owner asked for: the address
 * (shown to the organization's owners, who typed it), the role, and the HMAC of the link's token. Nothing
 * in it says whether the address has an account anywhere: that is decided when the link is used, by the
 * person who holds it (src/tenancy/invitations.ts). `accepted_at` set: used; the link no longer works.
 */
export const invitations = pgTable(
  'invitations',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    email: text('email').notNull(),
    role: text('role').notNull(),
    tokenHash: text('token_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    acceptedAt: timestamp('accepted_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('invitations_token_hash_idx').on(t.tokenHash),
    index('invitations_organization_idx').on(t.organizationId, t.email),
  ],
);

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

/**
 * Account-wide concurrency of a payer connection, shared by every worker process: one row per slot
 * (`slot` < the connection's `limits.concurrency`). A call holds a slot (`holder`, until `expires_at`, past
 * which a crashed holder's slot is free again). See src/store/queue/connection-slot-take.ts.
 */
export const connectionSlots = pgTable(
  'connection_slots',
  {
    connection: text('connection').notNull(),
    slot: integer('slot').notNull(),
    holder: text('holder'),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
  },
  (t) => [primaryKey({ columns: [t.connection, t.slot] })],
);

/**
 * Per connection: the rate limit's token bucket (`tokens` as of `refilled_at`) and the back-off a 429 asked
 * for (`paused_until`), shared by every worker process.
 */
export const connectionState = pgTable('connection_state', {
  connection: text('connection').primaryKey(),
  tokens: doublePrecision('tokens').notNull().default(0),
  refilledAt: timestamp('refilled_at', { withTimezone: true }).notNull().defaultNow(),
  pausedUntil: timestamp('paused_until', { withTimezone: true }),
});

/**
 * The payer directory every process agrees on: one document per source (`file`: PAYERS_FILE as last
 * loaded; `import:<connection>`: a clearinghouse payer list imported for that connection). Payers and
 * connection settings only; secrets stay references (`{"env"}`/`{"file"}`), resolved by each process.
 * `version` grows with every change, which processes are told of (NOTIFY elig_payer_directory).
 */
export const payerDirectory = pgTable('payer_directory', {
  source: text('source').primaryKey(),
  document: jsonb('document').notNull(),
  version: bigint('version', { mode: 'number' }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The payer scorecard (docs/payers.md "Scorecard"): counts per payer, connection and hour, never a check
 * id or anything of a patient. Each worker process adds up its own calls in memory and adds them here every
 * few seconds with one upsert per row (src/store/payer-call-stats.ts), so the processes' counts add up.
 */
export const payerCallStats = pgTable(
  'payer_call_stats',
  {
    /** The payer's canonical id; `*` (ALL_PAYERS): the connection's own row, the sum of its payers'. */
    payerId: text('payer_id').notNull(),
    /** The connection the calls went through (a named connection, or `payer:<id>` for an inline connector). */
    connection: text('connection').notNull(),
    /** The start of the UTC hour the calls were made in. */
    hour: timestamp('hour', { withTimezone: true }).notNull(),
    calls: integer('calls').notNull().default(0),
    completed: integer('completed').notNull().default(0),
    aaa: integer('aaa').notNull().default(0),
    transient: integer('transient').notNull().default(0),
    rejected: integer('rejected').notNull().default(0),
    errors: integer('errors').notNull().default(0),
    /** AAA03 code → calls answered with it. */
    aaaCodes: jsonb('aaa_codes').$type<Record<string, number>>().notNull().default({}),
    /** Calls per latency bucket (LATENCY_BUCKETS_MS of src/store/payer-call-stats.ts, then one over the last). */
    latencyBuckets: integer('latency_buckets').array().notNull(),
    latencyTotalMs: bigint('latency_total_ms', { mode: 'number' }).notNull().default(0),
    /** Completed checks by where their product service types came from (src/benefits/source.ts). */
    sourcePayerRows: integer('source_payer_rows').notNull().default(0),
    sourcePlanFallback: integer('source_plan_fallback').notNull().default(0),
    sourceNone: integer('source_none').notNull().default(0),
    lastSuccessAt: timestamp('last_success_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.payerId, t.connection, t.hour] }),
    // The scorecard reads a window of hours; retention deletes old hours.
    index('payer_call_stats_hour_idx').on(t.hour),
  ],
);

/**
 * An organization's fee schedule: the allowed amount of a procedure code, for one payer or (payer id '')
 * for every payer without a row of its own. Estimates price a charge sent without an amount from it.
 */
export const feeSchedule = pgTable(
  'fee_schedule',
  {
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    procedureCode: text('procedure_code').notNull(),
    /** The payer's canonical id; '' for the organization's default amount. */
    payerId: text('payer_id').notNull().default(''),
    // At most 100,000,000 cents (MAX_CHARGE_AMOUNT): an integer, which both drivers read as a number.
    amountCents: integer('amount_cents').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.procedureCode, t.payerId] })],
);
