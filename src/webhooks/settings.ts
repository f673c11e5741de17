/**
 * An organization's webhook settings: the URL (SSRF-checked when saved, and again at connect time by the
 * sender) and the signing secret (sealed with AES-256-GCM at rest; rolling keeps the old secret valid for
 * 24 hours, during which deliveries carry both signatures).
 */
import { EVENT_TYPE_NAMES, type EventTypeName, isEventTypeName } from '../contract/webhook-events.ts';
import type { Queryable } from '../store/db.ts';
import {
  clearWebhookSecrets,
  findWebhookColumns,
  rollWebhookSecretColumns,
  updateWebhookEventTypes,
  updateWebhookSecret,
  updateWebhookUrl,
  type WebhookColumns,
} from '../store/organizations.ts';
import { generateWebhookSecret, type SecretBox, validateWebhookSecret } from './signing-secrets.ts';
import { checkWebhookUrl } from './ssrf.ts';

const ROLL_OVERLAP_MS = 24 * 3600_000;

export interface WebhookSettings {
  url: string | null;
  secret: string | null;
  previousSecret: string | null;
  previousSecretExpiresAt: string | null;
  /** The event types the endpoint receives (all of them unless the organization chose). */
  eventTypes: EventTypeName[];
}

export type SettingsResult<T = void> = { ok: true; value: T } | { ok: false; reason: string };

export async function getWebhookSettings(
  db: Queryable,
  box: SecretBox,
  organizationId: string,
): Promise<WebhookSettings | undefined> {
  const r = await findWebhookColumns(db, organizationId);
  return r ? openWebhookSettings(box, r) : undefined;
}

/** The settings from the organization's stored columns: the secrets unsealed, an expired previous one dropped. */
export function openWebhookSettings(
  box: SecretBox,
  r: Pick<
    WebhookColumns,
    'webhookUrl' | 'webhookSecret' | 'webhookPreviousSecret' | 'webhookPreviousSecretExpiresAt'
  > &
    Partial<Pick<WebhookColumns, 'webhookEventTypes'>>,
): WebhookSettings {
  const previousValid =
    r.webhookPreviousSecret &&
    r.webhookPreviousSecretExpiresAt &&
    r.webhookPreviousSecretExpiresAt > new Date();
  return {
    url: r.webhookUrl,
    secret: r.webhookSecret ? box.open(r.webhookSecret) : null,
    previousSecret: previousValid ? box.open(r.webhookPreviousSecret!) : null,
    previousSecretExpiresAt: previousValid ? r.webhookPreviousSecretExpiresAt!.toISOString() : null,
    eventTypes: r.webhookEventTypes ? r.webhookEventTypes.filter(isEventTypeName) : [...EVENT_TYPE_NAMES],
  };
}

/** Sets (or with null clears) the URL. Refusals carry a reason a person can act on. */
export async function setWebhookUrl(
  db: Queryable,
  organizationId: string,
  url: string | null,
  options: { allowPrivate: boolean },
): Promise<SettingsResult<string | null>> {
  if (url === null || url.trim() === '') {
    await updateWebhookUrl(db, organizationId, null);
    return { ok: true, value: null };
  }
  const checked = checkWebhookUrl(url.trim(), { allowPrivate: options.allowPrivate });
  if (!checked.ok) return { ok: false, reason: checked.reason };
  const normalized = checked.url.toString();
  await updateWebhookUrl(db, organizationId, normalized);
  return { ok: true, value: normalized };
}

/** Sets the signing secret: a typed-in one (validated) or, with `generate`, a new random one. */
export async function setWebhookSecret(
  db: Queryable,
  box: SecretBox,
  organizationId: string,
  secret: string | { generate: true } | null,
): Promise<SettingsResult<string | null>> {
  if (secret === null) {
    await clearWebhookSecrets(db, organizationId);
    return { ok: true, value: null };
  }
  const value = typeof secret === 'string' ? secret : generateWebhookSecret();
  if (typeof secret === 'string') {
    const valid = validateWebhookSecret(secret);
    if (!valid.ok) return { ok: false, reason: valid.reason };
  }
  await updateWebhookSecret(db, organizationId, box.seal(value));
  return { ok: true, value };
}

/** Replaces the secret with a new random one; the old one keeps signing (second header) for 24 h. */
export async function rollWebhookSecret(
  db: Queryable,
  box: SecretBox,
  organizationId: string,
): Promise<SettingsResult<string>> {
  const next = generateWebhookSecret();
  const rolled = await rollWebhookSecretColumns(db, organizationId, box.seal(next), ROLL_OVERLAP_MS);
  if (!rolled)
    return { ok: false, reason: 'There is no signing secret to roll yet: generate or enter one first.' };
  return { ok: true, value: next };
}

/**
 * Chooses the event types the endpoint receives. Choosing every type stores null ("all"), so a type added
 * later reaches organizations that never narrowed their choice; an unknown name is refused.
 */
export async function setWebhookEventTypes(
  db: Queryable,
  organizationId: string,
  types: readonly string[],
): Promise<SettingsResult<EventTypeName[]>> {
  const unknown = types.filter((t) => !isEventTypeName(t));
  if (unknown.length) return { ok: false, reason: `Unknown event type: ${unknown.join(', ')}.` };
  const chosen = EVENT_TYPE_NAMES.filter((name) => types.includes(name));
  const all = chosen.length === EVENT_TYPE_NAMES.length;
  await updateWebhookEventTypes(db, organizationId, all ? null : chosen);
  return { ok: true, value: chosen };
}
