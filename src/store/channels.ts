/** NOTIFY channels that wake other processes: new checks, due webhook events, changed API keys. */
export const CHECKS_CHANNEL = 'elig_checks';
export const WEBHOOKS_CHANNEL = 'elig_webhooks';
export const KEYS_CHANNEL = 'elig_keys';
