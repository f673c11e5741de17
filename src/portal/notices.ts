/**
 * Status lines shown after an action (POST → 303 → GET `?notice=<key>`). Only these fixed keys travel in the
 * URL, so nothing a user typed (and no PHI) ever does.
 */
const NOTICES: Record<string, string> = {
  'signed-out': 'You are signed out.',
  'signed-in': 'You are signed in.',
  'password-set': 'Your password is set and you are signed in.',
  'key-revoked': 'The key is revoked. Requests that use it now get 401.',
  'url-saved': 'Webhook URL saved.',
  'url-cleared': 'Webhook URL removed: completed checks are no longer sent anywhere; clients poll instead.',
  'secret-removed': 'Signing secret removed: deliveries are no longer signed.',
  resent: 'The delivery is queued to be sent again now.',
  'test-pending': 'Test event queued. It has not been attempted yet: this page reloads until it has.',
  'test-sent': 'Test event sent. The attempt is below.',
};

export function noticeFor(key: string): string | undefined {
  return Object.hasOwn(NOTICES, key) ? NOTICES[key] : undefined;
}
