/**
 * The `organizations` table: every statement that reads or writes it, webhook settings included (they are
 * columns of the organization). Callers keep the rules (name length, URL checks, sealing secrets); this
 * module only runs the SQL.
 *
 * How statements here and in the other table modules are typed: a statement names each column it returns
 * with its drizzle key (`webhook_url AS "webhookUrl"`) and is typed with `Pick<…Row, keys>` of the row type
 * that drizzle infers from src/store/schema.ts, so a key renamed in the schema is a compile error and a
 * column renamed in the database is a test error; no row shape is written by hand.
 */
import { firstRow, type Queryable } from './db.ts';
import type { organizations } from './schema.ts';

export type OrganizationRow = typeof organizations.$inferSelect;

/**
 * The statements of one setting column of an organization: `find` (undefined when there is no such
 * organization) and `update` (the value as given: callers keep the rules). `column` is this module's constant.
 */
function settingColumn<K extends keyof OrganizationRow>(column: string, key: K) {
  return {
    find: (db: Queryable, organizationId: string) =>
      firstRow<Pick<OrganizationRow, K>>(
        db,
        `SELECT ${column} AS "${key}" FROM organizations WHERE id = $1`,
        [organizationId],
      ),
    update: async (db: Queryable, organizationId: string, value: OrganizationRow[K]): Promise<void> => {
      await db.query(`UPDATE organizations SET ${column} = $2 WHERE id = $1`, [organizationId, value]);
    },
  };
}

const eligibilityEnabled = settingColumn('eligibility_enabled', 'eligibilityEnabled');
const webhookEventTypes = settingColumn('webhook_event_types', 'webhookEventTypes');
const timeZone = settingColumn('time_zone', 'timeZone');
const reuseWithinHours = settingColumn('reuse_within_hours', 'reuseWithinHours');

export async function insertOrganization(
  db: Queryable,
  org: Pick<OrganizationRow, 'id' | 'name'>,
): Promise<void> {
  await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [org.id, org.name]);
}

export const updateEligibilityEnabled = eligibilityEnabled.update;

/**
 * Serializes the first start of several processes on one PostgreSQL: a transaction-scoped advisory lock,
 * so only one of them sees no organization and creates the demo one.
 */
export async function lockFirstStart(tx: Queryable): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(7253901119)');
}

export async function countOrganizations(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM organizations');
  return rows[0]!.n;
}

export async function organizationExists(db: Queryable, id: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM organizations WHERE id = $1', [id]);
  return rows.length > 0;
}

/** Every organization, oldest first. */
export async function listOrganizations(
  db: Queryable,
): Promise<Pick<OrganizationRow, 'id' | 'name' | 'eligibilityEnabled'>[]> {
  const { rows } = await db.query<Pick<OrganizationRow, 'id' | 'name' | 'eligibilityEnabled'>>(
    'SELECT id, name, eligibility_enabled AS "eligibilityEnabled" FROM organizations ORDER BY created_at',
  );
  return rows;
}

export type WebhookColumns = Pick<
  OrganizationRow,
  | 'webhookUrl'
  | 'webhookSecret'
  | 'webhookPreviousSecret'
  | 'webhookPreviousSecretExpiresAt'
  | 'webhookEventTypes'
>;

/** The webhook URL and the sealed secrets; undefined when there is no such organization. */
export const findWebhookColumns = (db: Queryable, organizationId: string) =>
  firstRow<WebhookColumns>(
    db,
    `SELECT webhook_url AS "webhookUrl", webhook_secret AS "webhookSecret",
            webhook_previous_secret AS "webhookPreviousSecret",
            webhook_previous_secret_expires_at AS "webhookPreviousSecretExpiresAt",
            webhook_event_types AS "webhookEventTypes"
       FROM organizations WHERE id = $1`,
    [organizationId],
  );

/** Sets (a URL already checked) or clears (null) the webhook URL. */
export async function updateWebhookUrl(
  db: Queryable,
  organizationId: string,
  url: string | null,
): Promise<void> {
  if (url === null)
    await db.query('UPDATE organizations SET webhook_url = NULL WHERE id = $1', [organizationId]);
  else await db.query('UPDATE organizations SET webhook_url = $2 WHERE id = $1', [organizationId, url]);
}

/** The event types the endpoint receives (already validated names), or null for all of them. */
export const updateWebhookEventTypes = webhookEventTypes.update;

/** Clears the signing secret and any previous one still valid. */
export async function clearWebhookSecrets(db: Queryable, organizationId: string): Promise<void> {
  await db.query(
    `UPDATE organizations SET webhook_secret = NULL, webhook_previous_secret = NULL, webhook_previous_secret_expires_at = NULL
      WHERE id = $1`,
    [organizationId],
  );
}

export async function updateWebhookSecret(
  db: Queryable,
  organizationId: string,
  sealed: string,
): Promise<void> {
  await db.query('UPDATE organizations SET webhook_secret = $2 WHERE id = $1', [organizationId, sealed]);
}

/**
 * The current secret becomes the previous one for `overlapMs`, `sealed` the current one; false when there
 * is no current secret to roll.
 */
export async function rollWebhookSecretColumns(
  db: Queryable,
  organizationId: string,
  sealed: string,
  overlapMs: number,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE organizations
        SET webhook_previous_secret = webhook_secret,
            webhook_previous_secret_expires_at = now() + $3 * interval '1 millisecond',
            webhook_secret = $2
      WHERE id = $1 AND webhook_secret IS NOT NULL`,
    [organizationId, sealed, overlapMs],
  );
  return rowCount === 1;
}

/** The portal's time zone of the organization (null: the browser's); undefined when there is no such organization. */
export const findTimeZone = timeZone.find;
export const updateTimeZone = timeZone.update;

/** The organization's default reuse window in hours (null: off); undefined when there is no such organization. */
export const findReuseWithinHours = reuseWithinHours.find;
export const updateReuseWithinHours = reuseWithinHours.update;

/** The providers the run-a-check form offers, in the order they were added; undefined when there is no such organization. */
export const findProviders = settingColumn('providers', 'providers').find;

/**
 * The same, locking the organization's row until the transaction ends, so two owners changing the list at
 * once do not lose each other's change (the list is read, changed and written back as one value).
 */
export const findProvidersForUpdate = (tx: Queryable, organizationId: string) =>
  firstRow<Pick<OrganizationRow, 'providers'>>(
    tx,
    'SELECT providers FROM organizations WHERE id = $1 FOR UPDATE',
    [organizationId],
  );

/** Replaces the list (already checked by the caller); sent as JSON text, since drivers send arrays as SQL arrays. */
export async function updateProviders(
  db: Queryable,
  organizationId: string,
  providers: OrganizationRow['providers'],
): Promise<void> {
  await db.query('UPDATE organizations SET providers = $2::jsonb WHERE id = $1', [
    organizationId,
    JSON.stringify(providers),
  ]);
}
