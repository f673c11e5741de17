/**
 * Status lines shown after an action (POST → 303 → GET `?notice=<key>`). Only these fixed keys travel in the
 * URL, so nothing a user typed (and no PHI) ever does.
 */
const NOTICES: Record<string, string> = {
  'signed-out': 'You are signed out.',
  'signed-in': 'You are signed in.',
  'password-set': 'Your password is set and you are signed in.',
  joined: 'You joined the team and are signed in.',
  'invitation-withdrawn': 'Invitation withdrawn: its link no longer works.',
  'key-shown-once':
    'A new key is shown only once, right after it is created. If you did not copy it, create another key and revoke the one you lost.',
  'role-changed': 'Role changed. It applies from their next page.',
  'user-removed': 'Removed from the team: they are signed out and their sign-in links no longer work.',
  'key-revoked': 'The key is revoked. Requests that use it now get 401.',
  'url-saved': 'Webhook URL saved.',
  'events-saved': 'Event types saved: deliveries from now on follow this choice.',
  'url-cleared': 'Webhook URL removed: completed checks are no longer sent anywhere; clients poll instead.',
  'secret-removed': 'Signing secret removed: deliveries are no longer signed.',
  'batch-submitted':
    'Batch submitted: its checks run in the background. This page updates by itself until they are done.',
  resent: 'The delivery is queued to be sent again now.',
  'test-pending': 'Test event queued. It has not been attempted yet: this page reloads until it has.',
  'test-sent': 'Test event sent. The attempt is below.',
  'monitor-created': 'Monitor started: its checks appear below as they run.',
  'monitor-paused': 'Monitor paused: it runs no checks until you resume it.',
  'monitor-active': 'Monitor resumed: a check that came due while it was paused runs now, once.',
  'monitor-completed':
    'This monitor is completed: every visit has been checked. Start a new one for new dates.',
  'monitor-deleted': 'Monitor deleted. The checks it ran are still listed under Checks.',
  'time-zone-saved': 'Time zone saved: the portal shows times in it for everyone in your organization.',
  'fees-saved': 'Fee schedule saved: it replaces the previous one and prices charges from now on.',
  'reuse-saved': 'Reuse window saved: it applies to checks submitted from now on.',
  'discovery-payers-saved': 'Discovery payers saved: Find coverage asks them from now on.',
  'provider-added': 'Provider added: "Run a check" offers it from now on.',
  'provider-removed': 'Provider removed. Checks already run for it are unchanged.',
  'provider-default': 'Default provider changed: "Run a check" chooses it first.',
};

export function noticeFor(key: string): string | undefined {
  return Object.hasOwn(NOTICES, key) ? NOTICES[key] : undefined;
}
