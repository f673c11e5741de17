/**
 * Views as the pure functions they are: data in, HTML out, with no service behind them. What people type
 * (names, emails, search terms) comes back escaped, and each page says what the data says.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keyNotFoundPage, keysPage, revokeKeyPage } from '../../src/portal/views/api-keys.ts';
import { batchProblemPage } from '../../src/portal/views/batches.ts';
import { checksPage } from '../../src/portal/views/checks.ts';
import { FIELDS, resubmitPage, runPage, type Values } from '../../src/portal/views/checks-new.ts';
import { monitorFormPage } from '../../src/portal/views/monitors.ts';
import { organizationPage } from '../../src/portal/views/organization.ts';
import {
  linkInvalidPage,
  setPasswordPage,
  signInPage,
  tooManyAttemptsPage,
} from '../../src/portal/views/sign-in.ts';
import { removeMemberPage, teamPage } from '../../src/portal/views/team.ts';
import type { ApiKeyRecord } from '../../src/tenancy/api-keys.ts';
import type { PortalSession } from '../../src/tenancy/sessions.ts';

const EVIL = `<script>alert("x")</script>`;
const ESCAPED = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;';

function session(role: 'owner' | 'member' = 'owner'): PortalSession {
  return {
    idHash: 'hash',
    user: { id: 'usr_me', organizationId: 'org_1', email: 'me@clinic.example', role },
    organizationName: 'Demo Clinic',
    organizationTimeZone: null,
    csrfToken: 'csrf-token',
    expiresAt: new Date('2030-01-01T00:00:00Z'),
  };
}

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

function key(o: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: 'key_1',
    organizationId: 'org_1',
    name: EVIL,
    prefix: 'elig_test_ab12cd34',
    scopes: ['eligibility:read'],
    createdAt: '2026-05-01T14:03:07.000Z',
    lastUsedAt: null,
    revokedAt: null,
    ...o,
  };
}

test('API keys: names are escaped; a revoked key has no revoke link; a new key is shown in a copy field', () => {
  const revoked = key({ id: 'key_2', revokedAt: '2026-05-02T00:00:00.000Z' });
  const out = keysPage(session(), [key(), revoked], {
    created: { key: 'elig_test_secret', record: key() },
  }).value;
  assert.ok(!out.includes(EVIL));
  assert.match(out, new RegExp(`<h2 id="new-key">Your new key: ${ESCAPED.replace(/[()]/g, '\\$&')}</h2>`));
  assert.match(out, /<input id="new-key-value" class="mono" type="text" readonly value="elig_test_secret"/);
  assert.match(out, /href="\/portal\/settings\/api-keys\/key_1\/revoke"/);
  assert.doesNotMatch(out, /key_2\/revoke/);
  assert.match(out, /<tr class="revoked">/);
});

test('API keys: the create form keeps what was sent and points at each problem', () => {
  const form = {
    name: EVIL,
    scopes: [],
    mode: 'live',
    errors: [{ field: 'scopes', message: 'Choose one.' }],
  };
  const out = keysPage(session(), [], { form }).value;
  assert.match(out, /<p>No keys yet.<\/p>/);
  assert.ok(out.includes(`value="${ESCAPED}"`));
  assert.match(out, /<fieldset id="f-scopes" class="has-error" aria-describedby="f-scopes-error">/);
  assert.match(out, /id="mode-live" name="mode" value="live" checked>/);
  assert.doesNotMatch(out, /name="scopes" value="[^"]+" checked/);
});

test('API keys: revoking asks first, and a missing key is the 404 message', () => {
  const out = revokeKeyPage(session(), key()).value;
  assert.ok(out.includes(`<h1>Revoke “${ESCAPED}”?</h1>`));
  assert.match(
    out,
    /<form method="post" action="\/portal\/settings\/api-keys\/key_1\/revoke" class="actions">/,
  );
  assert.match(out, /value="csrf-token"/);
  assert.match(keyNotFoundPage(session()).value, /<h1>Key not found<\/h1>/);
});

const PEOPLE = [
  {
    id: 'usr_me',
    organizationId: 'org_1',
    email: 'me@clinic.example',
    role: 'owner' as const,
    hasPassword: true,
    createdAt: '2026-05-01T00:00:00.000Z',
  },
  {
    id: 'usr_2',
    organizationId: 'org_1',
    email: `${EVIL}@clinic.example`,
    role: 'member' as const,
    hasPassword: false,
    createdAt: '2026-05-02T00:00:00.000Z',
  },
];

const INVITED = [
  {
    id: 'inv_1',
    email: `${EVIL}@invited.example`,
    role: 'owner' as const,
    createdAt: '2026-05-03T00:00:00.000Z',
    expiresAt: '2026-05-10T00:00:00.000Z',
    expired: false,
  },
  {
    id: 'inv_2',
    email: 'late@invited.example',
    role: 'member' as const,
    createdAt: '2026-04-01T00:00:00.000Z',
    expiresAt: '2026-04-08T00:00:00.000Z',
    expired: true,
  },
];
const TEAM_LIST = { users: PEOPLE, invitations: INVITED };

test('team: open invitations are listed as invited (escaped), with a new link and withdraw', () => {
  const out = teamPage(session(), TEAM_LIST, {}).value;
  assert.ok(!out.includes(EVIL));
  assert.ok(
    out.includes(
      `<th scope="row">${ESCAPED}@invited.example</th><td>Owner</td><td>Invited (link valid until <time`,
    ),
  );
  assert.match(out, /<th scope="row">late@invited.example<\/th><td>Member<\/td><td>Invitation expired<\/td>/);
  assert.match(out, /action="\/portal\/settings\/team\/invitations\/inv_1\/link"/);
  assert.match(out, /action="\/portal\/settings\/team\/invitations\/inv_2\/withdraw"/);
});

test('team: others get actions (escaped), the signed-in owner does not', () => {
  const out = teamPage(session(), TEAM_LIST, {}).value;
  assert.ok(!out.includes(EVIL));
  assert.ok(out.includes(`<th scope="row">${ESCAPED}@clinic.example</th>`));
  assert.match(out, /<span class="muted">You<\/span>/);
  assert.match(out, /action="\/portal\/settings\/team\/usr_2\/role"[\s\S]*?name="role" value="owner"/);
  assert.doesNotMatch(out, /usr_me\/(role|link|remove)/);
});

test('team: a link to pass on warns when its address is a guess', () => {
  const guessed = { email: 'new@clinic.example', url: 'http://10.0.0.5:3000/portal/login/t', guessed: true };
  const out = teamPage(session(), TEAM_LIST, { invited: guessed }).value;
  assert.match(out, /<h2 id="invited">Invitation for new@clinic.example<\/h2>/);
  assert.match(out, /This link assumes the portal is at http:\/\/10.0.0.5:3000/);
  const linked = teamPage(session(), TEAM_LIST, {
    linked: { ...guessed, guessed: false, validDays: 1 },
  }).value;
  assert.match(linked, /It works once, within 1 day;/);
  assert.doesNotMatch(linked, /This link assumes/);
});

test('team: a refused action and an invitation problem are shown with what was typed', () => {
  const out = teamPage(session(), TEAM_LIST, {
    actionError: EVIL,
    email: EVIL,
    role: 'owner',
    error: 'Bad.',
  }).value;
  assert.ok(out.includes(`<h2>That did not work</h2><p>${ESCAPED}</p>`));
  assert.ok(out.includes(`value="${ESCAPED}"`));
  assert.match(out, /id="role-owner" name="role" value="owner" checked>/);
  const remove = removeMemberPage(session(), PEOPLE[1]!).value;
  assert.ok(remove.includes(`<h1>Remove ${ESCAPED}@clinic.example?</h1>`));
});

test('organization: the current settings, and a refused value shown back escaped on its field', () => {
  const set = organizationPage(session(), {
    zone: 'America/Chicago',
    reuseWithinHours: 1,
    providers: [],
    discoveryPayers: ['SANDBOX'],
  }).value;
  assert.match(set, /Now: <strong>SANDBOX<\/strong>/);
  assert.match(set, /Now: <strong>America\/Chicago<\/strong>/);
  assert.match(set, /<option value="America\/Chicago" selected>America\/Chicago<\/option>/);
  assert.match(set, /checks are reused for 1 hour<\/strong>/);
  assert.match(set, /name="reuseWithinHours" inputmode="numeric" value="1">/);
  const refused = organizationPage(
    session(),
    { zone: null, reuseWithinHours: null, providers: [], discoveryPayers: null },
    { reuseError: 'Whole hours.', reuseTyped: EVIL, error: 'Pick one.', chosen: '' },
  ).value;
  assert.match(refused, /Now: <strong>each person&#39;s browser zone<\/strong>/);
  assert.match(refused, /off: every check asks the payer/);
  assert.ok(
    refused.includes(`value="${ESCAPED}" aria-invalid="true" aria-describedby="f-reuseWithinHours-error"`),
  );
  assert.match(refused, /<select id="f-timeZone" name="timeZone" aria-invalid="true"/);
  assert.match(refused, /<option value="" selected>Each person's browser zone<\/option>/);
});

const NO_FILTERS = { q: '', verdict: '', status: '', payer: '', from: '', to: '', tz: '' } as const;

test('checks: patients escaped, member ids by their last four, the verdict or else the status', () => {
  const check = {
    id: 'c1',
    status: 'COMPLETED' as const,
    verdict: 'ACTIVE' as const,
    tradingPartnerServiceId: 'SANDBOX',
    memberIdLast4: '0001',
    firstName: EVIL,
    lastName: 'DOE',
    dateOfBirth: '19800115',
    outcomeCode: null,
    createdAt: '2026-05-01T14:03:07.000Z',
    completedAt: null,
  };
  const running = { ...check, id: 'c2', status: 'IN_PROGRESS' as const, verdict: null };
  const out = checksPage(session(), { ...NO_FILTERS }, { checks: [check, running] }, false, undefined).value;
  assert.ok(out.includes(`<td>DOE, ${ESCAPED}</td>`));
  assert.match(out, /<span class="mono">••••0001<\/span>/);
  assert.match(out, /<td>1980-01-15<\/td>/);
  assert.match(out, /<span class="badge badge-active">Active<\/span>/);
  assert.match(out, /<span class="badge badge-in_progress">In progress<\/span>/);
  assert.match(out, /<a href="\/portal\/checks\/c1">/);
  assert.doesNotMatch(out, /<nav aria-label="Pages" class="pager"><a/);
});

test('checks: a search that finds nothing says so; the pager keeps the search and filters', () => {
  const f = { ...NO_FILTERS, q: EVIL, status: 'FAILED' as const, from: '2026-01-01', tz: 'America/Chicago' };
  const out = checksPage(session(), f, { checks: [], next: 'c9' }, true, 'Saved.').value;
  assert.match(out, /No checks match this search/);
  assert.ok(out.includes(`name="q" type="search" value="${ESCAPED}"`));
  assert.match(out, /<option value="FAILED" selected>Failed<\/option>/);
  const search = new URLSearchParams({
    q: EVIL,
    status: 'FAILED',
    from: '2026-01-01',
    tz: 'America/Chicago',
  });
  assert.ok(
    out.includes(`<a href="/portal/checks?${search.toString().replaceAll('&', '&amp;')}">Newest</a>`),
  );
  assert.ok(out.includes(`before=c9">Older checks</a>`));
  assert.match(out, /<p class="notice" role="status">Saved.<\/p>/);
  assert.match(
    checksPage(session(), { ...NO_FILTERS }, { checks: [] }, false, undefined).value,
    /No checks match. <a href="\/portal\/checks\/new">Run a check<\/a>/,
  );
});

const BLANK = Object.fromEntries(Object.keys(FIELDS).map((k) => [k, ''])) as Values;
const PAYERS = [
  { id: 'SANDBOX', name: 'Sandbox Health Plan', aliases: [], connectorType: 'sandbox' as const },
];

test('run a check: typed values come back escaped, each problem on its field, once in the summary', () => {
  const values = { ...BLANK, 'subscriber.firstName': EVIL };
  const problems = [
    { field: 'subscriber.firstName', problem: 'may contain only letters' },
    { field: 'encounter.serviceTypeCodes[1]', problem: 'is not a known X12 service type code' },
    { field: 'provider', problem: 'is required' },
  ];
  const out = runPage(session(), PAYERS, values, problems).value;
  assert.ok(out.includes(`value="${ESCAPED}"`) && !out.includes(EVIL));
  assert.match(out, /<a href="#f-subscriber-firstName">First name may contain only letters.<\/a>/);
  assert.match(
    out,
    /<a href="#f-encounter-serviceTypeCodes">Other service type codes \(code 2\) is not a known/,
  );
  assert.match(out, /<a href="#f-provider-organizationName">Enter the provider organization name.<\/a>/);
  assert.match(out, /id="f-subscriber-firstName"[^>]*aria-invalid="true"/);
});

test('fix and resubmit: the note links the earlier check and names its errors; highlights mark fields', () => {
  const highlights = [{ field: 'subscriber.memberId' as const, message: `${EVIL} (code 72).` }];
  const out = resubmitPage(
    session(),
    PAYERS,
    BLANK,
    { id: 'c1', errors: [{ description: EVIL }] },
    highlights,
  );
  assert.ok(out.value.includes(`that failed: <strong>${ESCAPED}</strong>`));
  assert.match(out.value, /<a href="\/portal\/checks\/c1">an earlier check<\/a>/);
  assert.match(out.value, /Correct the highlighted fields/);
  assert.match(out.value, /id="f-subscriber-memberId"[^>]*aria-invalid="true"/);
  const blameless = resubmitPage(session(), PAYERS, BLANK, { id: 'c1', errors: [] }, []).value;
  assert.match(blameless, /an earlier check<\/a>.<\/p><p>No one field is to blame/);
});

test('monitor form page: a refused schedule comes back escaped with its problem, under a link to the check', () => {
  const values = { schedule: 'every' as const, every: EVIL, dates: '' };
  const out = monitorFormPage(session(), 'c1', values, [
    { field: 'every', message: 'Days between checks must be 1 to 365.' },
  ]).value;
  assert.match(out, /<p><a href="\/portal\/checks\/c1">← Back to the check<\/a><\/p>/);
  assert.match(out, /<input type="hidden" name="check" value="c1">/);
  assert.ok(out.includes(`name="every" type="text" value="${ESCAPED}"`));
  assert.match(out, /<input type="radio" name="schedule" value="every" checked>/);
  assert.match(out, /<p class="error" id="f-every-error">Days between checks must be 1 to 365.<\/p>/);
});

test('batch problem page: says why, escaped, with the way back; signed in or not', () => {
  const out = batchProblemPage(session(), 'No file', EVIL).value;
  assert.ok(out.includes(`<h1>No file</h1><p>${ESCAPED}</p>`));
  assert.match(out, /<a class="button" href="\/portal\/batches">Back to Batches<\/a>/);
  assert.match(out, /me@clinic.example/);
  assert.doesNotMatch(batchProblemPage(undefined, 'Form expired', 'Again.').value, /Sign out/);
});
