/**
 * Views as the pure functions they are: data in, HTML out, with no service behind them. What people type
 * (names, emails, search terms) comes back escaped, and each page says what the data says.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  linkInvalidPage,
  setPasswordPage,
  signInPage,
  tooManyAttemptsPage,
} from '../../src/portal/views/sign-in.ts';

const EVIL = `<script>alert("x")</script>`;
const ESCAPED = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;';

test('sign-in: what was typed comes back escaped, with the form token and the next page', () => {
  const out = signInPage({ token: 'tok', email: EVIL, next: '/portal/batches', error: 'Wrong.' }).value;
  assert.ok(out.includes(`value="${ESCAPED}"`));
  assert.ok(!out.includes(EVIL));
  assert.match(out, /<input type="hidden" name="_csrf" value="tok">/);
  assert.match(out, /<input type="hidden" name="next" value="\/portal\/batches">/);
  assert.match(out, /<div class="error-summary" role="alert"><p>Wrong.<\/p><\/div>/);
});

test('a one-time link asks for a password only when it needs one, titled by its purpose', () => {
  const base = { path: '/portal/login/t', token: 'tok', email: 'new@clinic.example' };
  const invite = setPasswordPage({ ...base, purpose: 'invite', needsPassword: true }).value;
  assert.match(invite, /<h1>Accept your invitation: choose a password<\/h1>/);
  assert.match(invite, /name="password"[^>]*type="password"/);
  assert.match(invite, /<form method="post" action="\/portal\/login\/t"/);
  const again = setPasswordPage({ ...base, purpose: 'first-login', needsPassword: false }).value;
  assert.match(again, /<h1>Continue to sign in<\/h1>/);
  assert.doesNotMatch(again, /name="password"/);
  const problem = setPasswordPage({ ...base, purpose: 'password-reset', needsPassword: true, error: EVIL });
  assert.ok(problem.value.includes(ESCAPED) && !problem.value.includes(EVIL));
});

test('a dead link and a throttled account say what to do next', () => {
  assert.match(linkInvalidPage().value, /<a class="button" href="\/portal\/login">Go to sign in<\/a>/);
  assert.match(tooManyAttemptsPage(61).value, /Wait 2 minute\(s\) and try again/);
});
