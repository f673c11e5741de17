/**
 * The `organizations` table: every statement that reads or writes it, webhook settings included (they are
 * columns of the organization). Callers keep the rules (name length, URL checks, sealing secrets); this
 * module only runs the SQL.
 *
 * Statements are typed as described in typed.ts.
 */
import type { Column } from 'drizzle-orm';
import { changedOne, firstRow, type Queryable } from './db.ts';
import { organizations } from './schema.ts';
import { columns, type RowOf, sqlOf } from './typed.ts';

export type OrganizationRow = typeof organizations.$inferSelect;

/**
 * The statements of one setting column of an organization: `find` (undefined when there is no such
 * organization) and `update` (the value as given: callers keep the rules).
 */
function settingColumn<K extends keyof OrganizationRow & keyof typeof organizations>(key: K) {
  const column: Column = organizations[key];
  const find = sqlOf`SELECT ${columns(organizations, [key])} FROM ${organizations} WHERE ${organizations.id} = $1`;
  const update = sqlOf`UPDATE ${organizations} SET ${column} = $2 WHERE ${organizations.id} = $1`;
  return {
    find: (db: Queryable, organizationId: string) =>
      firstRow<Pick<OrganizationRow, K>>(db, find, [organizationId]),
    update: async (db: Queryable, organizationId: string, value: OrganizationRow[K]): Promise<void> => {
      await db.query(update, [organizationId, value]);
    },
  };
}

const eligibilityEnabled = settingColumn('eligibilityEnabled');
const webhookEventTypes = settingColumn('webhookEventTypes');
const timeZone = settingColumn('timeZone');
const reuseWithinHours = settingColumn('reuseWithinHours');

const INSERT = sqlOf`INSERT INTO ${organizations} (${organizations.id}, ${organizations.name}) VALUES ($1, $2)`;

export async function insertOrganization(
  db: Queryable,
  org: Pick<OrganizationRow, 'id' | 'name'>,
): Promise<void> {
  await db.query(INSERT, [org.id, org.name]);
}

export const updateEligibilityEnabled = eligibilityEnabled.update;

/**
 * Serializes the first start of several processes on one PostgreSQL: a transaction-scoped advisory lock,
 * so only one of them sees no organization and creates the demo one.
 */
export async function lockFirstStart(tx: Queryable): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(7253901119)');
}

const COUNT = sqlOf`SELECT count(*)::int AS n FROM ${organizations}`;

export async function countOrganizations(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>(COUNT);
  return rows[0]!.n;
}

const EXISTS = sqlOf`SELECT 1 FROM ${organizations} WHERE ${organizations.id} = $1`;

export async function organizationExists(db: Queryable, id: string): Promise<boolean> {
  const { rows } = await db.query(EXISTS, [id]);
  return rows.length > 0;
}

const LISTED = columns(organizations, ['id', 'name', 'eligibilityEnabled']);
const LIST = sqlOf`SELECT ${LISTED} FROM ${organizations} ORDER BY ${organizations.createdAt}`;

/** Every organization, oldest first. */
export async function listOrganizations(db: Queryable): Promise<RowOf<typeof LISTED>[]> {
  const { rows } = await db.query<RowOf<typeof LISTED>>(LIST);
  return rows;
}

const WEBHOOK_COLUMNS = columns(organizations, [
  'webhookUrl',
  'webhookSecret',
  'webhookPreviousSecret',
  'webhookPreviousSecretExpiresAt',
  'webhookEventTypes',
]);
export type WebhookColumns = RowOf<typeof WEBHOOK_COLUMNS>;
const FIND_WEBHOOK = sqlOf`SELECT ${WEBHOOK_COLUMNS}
       FROM ${organizations} WHERE ${organizations.id} = $1`;

/** The webhook URL and the sealed secrets; undefined when there is no such organization. */
export const findWebhookColumns = (db: Queryable, organizationId: string) =>
  firstRow<WebhookColumns>(db, FIND_WEBHOOK, [organizationId]);

const CLEAR_URL = sqlOf`UPDATE ${organizations} SET ${organizations.webhookUrl} = NULL WHERE ${organizations.id} = $1`;
const SET_URL = sqlOf`UPDATE ${organizations} SET ${organizations.webhookUrl} = $2 WHERE ${organizations.id} = $1`;

/** Sets (a URL already checked) or clears (null) the webhook URL. */
export async function updateWebhookUrl(
  db: Queryable,
  organizationId: string,
  url: string | null,
): Promise<void> {
  if (url === null) await db.query(CLEAR_URL, [organizationId]);
  else await db.query(SET_URL, [organizationId, url]);
}

/** The event types the endpoint receives (already validated names), or null for all of them. */
export const updateWebhookEventTypes = webhookEventTypes.update;

const CLEAR_SECRETS = sqlOf`UPDATE ${organizations} SET ${organizations.webhookSecret} = NULL, ${organizations.webhookPreviousSecret} = NULL, ${organizations.webhookPreviousSecretExpiresAt} = NULL
      WHERE ${organizations.id} = $1`;

/** Clears the signing secret and any previous one still valid. */
export async function clearWebhookSecrets(db: Queryable, organizationId: string): Promise<void> {
  await db.query(CLEAR_SECRETS, [organizationId]);
}

const SET_SECRET = sqlOf`UPDATE ${organizations} SET ${organizations.webhookSecret} = $2 WHERE ${organizations.id} = $1`;

export async function updateWebhookSecret(
  db: Queryable,
  organizationId: string,
  sealed: string,
): Promise<void> {
  await db.query(SET_SECRET, [organizationId, sealed]);
}

const ROLL_SECRET = sqlOf`UPDATE ${organizations}
        SET ${organizations.webhookPreviousSecret} = ${organizations.webhookSecret},
            ${organizations.webhookPreviousSecretExpiresAt} = now() + $3 * interval '1 millisecond',
            ${organizations.webhookSecret} = $2
      WHERE ${organizations.id} = $1 AND ${organizations.webhookSecret} IS NOT NULL`;

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
  return changedOne(db, ROLL_SECRET, [organizationId, sealed, overlapMs]);
}

/** The portal's time zone of the organization (null: the browser's); undefined when there is no such organization. */
export const findTimeZone = timeZone.find;
export const updateTimeZone = timeZone.update;

/** The organization's default reuse window in hours (null: off); undefined when there is no such organization. */
export const findReuseWithinHours = reuseWithinHours.find;
export const updateReuseWithinHours = reuseWithinHours.update;

const discoveryPayers = settingColumn('discoveryPayers');
/**
 * The payers an insurance discovery asks when its request names none (null: every directory payer that
 * takes demographic searches); undefined when there is no such organization.
 */
export const findDiscoveryPayers = discoveryPayers.find;
export const updateDiscoveryPayers = discoveryPayers.update;

/** The providers the run-a-check form offers, in the order they were added; undefined when there is no such organization. */
export const findProviders = settingColumn('providers').find;

const PROVIDERS_FOR_UPDATE = sqlOf`SELECT ${columns(organizations, ['providers'])} FROM ${organizations}
  WHERE ${organizations.id} = $1 FOR UPDATE`;

/**
 * The same, locking the organization's row until the transaction ends, so two owners changing the list at
 * once do not lose each other's change (the list is read, changed and written back as one value).
 */
export const findProvidersForUpdate = (tx: Queryable, organizationId: string) =>
  firstRow<Pick<OrganizationRow, 'providers'>>(tx, PROVIDERS_FOR_UPDATE, [organizationId]);

const UPDATE_PROVIDERS = sqlOf`UPDATE ${organizations} SET ${organizations.providers} = $2::jsonb WHERE ${organizations.id} = $1`;

/** Replaces the list (already checked by the caller); sent as JSON text, since drivers send arrays as SQL arrays. */
export async function updateProviders(
  db: Queryable,
  organizationId: string,
  providers: OrganizationRow['providers'],
): Promise<void> {
  await db.query(UPDATE_PROVIDERS, [organizationId, JSON.stringify(providers)]);
}
