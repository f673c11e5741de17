/**
 * Byte-identity check for portal refactors: every portal page in the states worth seeing (signed out, sign-in
 * and one-time links, checks, a check, run-a-check with and without errors, batches, monitors, team, API
 * keys, webhooks, organization settings, the 403/404 pages), with status, content type and redirect target,
 * and random values normalised (ids, CSRF tokens, keys, links, secrets, times, latencies). It imports the
 * tree it is run in (the working directory), so one copy of it serves both sides of a change:
 *   node --import tsx scripts/portal-snapshot.ts before.txt
 *   ... change ...
 *   node --import tsx scripts/portal-snapshot.ts after.txt && cmp before.txt after.txt
 * Run it twice on one tree first: the two outputs must already be equal. Visit dates are relative to today,
 * so compare runs of the same day; the test webhook's notice says `test-pending` instead of `test-sent` when
 * the dispatcher takes over five seconds (a busy machine): run again. About half a minute.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { normalizeRun } from './snapshot-normalize.ts';

const root = process.cwd();
const imp = (p: string) => import(pathToFileURL(resolve(root, p)).href);
const { startPortal, signInWithLink, csrfToken, PortalClient, waitForCheck } =
  await imp('test/portal/helpers.ts');
const { eventually } = await imp('test/helpers/eventually.ts');
const { member } = await imp('test/helpers/members.ts');

type Page = { status: number; headers: Headers; text: string; location: string | null };
type Client = InstanceType<typeof PortalClient>;

const receiver = createServer((_req, res) => res.writeHead(204).end());
await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;

// A monitor's schedule is far enough ahead that it runs nothing while the pages are read.
const h = await startPortal({ config: { logLevel: 'error', monitorPollMs: 3_600_000 } });
const shots: string[] = [];
function shot(name: string, p: Page): Page {
  const head = [
    p.status,
    p.headers.get('content-type'),
    p.location && `location: ${p.location}`,
    p.headers.get('retry-after') && `retry-after: ${p.headers.get('retry-after')}`,
  ].filter(Boolean);
  shots.push(`=== ${name}\n${head.join(' | ')}\n${p.text}\n`);
  return p;
}
const get = async (c: Client, name: string, path: string) => shot(name, await c.get(path));
const post = async (
  c: Client,
  name: string,
  pagePath: string,
  action: string,
  fields: Record<string, string | string[]>,
) => shot(name, await c.submit(pagePath, action, fields));
/** Posts the forms of one settings page: `action` is a path under it, the CSRF token the page's. */
const formsOf =
  (c: Client, pagePath: string) =>
  (name: string, action: string, fields: Record<string, string | string[]> = {}) =>
    post(c, name, pagePath, `${pagePath}${action}`, fields);
/**
 * An action with a confirmation step (`<base>/<id>/<verb>`): the question, the question about an unknown id,
 * the answer, the answer again, and the list with its notice.
 */
async function confirmed(c: Client, label: string, base: string, idVerb: string, notice: string) {
  const [, verb] = idVerb.split('/');
  await get(c, `${label}: ${verb}?`, `${base}/${idVerb}`);
  await get(c, `${label}: ${verb} unknown`, `${base}/nope/${verb}`);
  await post(c, `${label}: ${verb}`, base, `${base}/${idVerb}`, {});
  await post(c, `${label}: ${verb} again`, base, `${base}/${idVerb}`, {});
  await get(c, `${label}: ${verb}d`, `${base}?notice=${notice}`);
}
const hidden = (text: string, name: string) =>
  new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(text)![1]!;
const first = (text: string, re: RegExp) => re.exec(text)![1]!;

async function readPages(): Promise<void> {
  const anon = new PortalClient(h.url);
  await get(anon, 'signed out: /portal/checks', '/portal/checks?q=x');
  await get(anon, 'sign-in', '/portal/login');
  await get(anon, 'sign-in with next', '/portal/login?next=/portal/batches');
  await get(anon, 'sign-in, next elsewhere', '/portal/login?next=https://elsewhere.example/');
  await get(anon, 'one-time link: first sign-in', h.loginPath);
  await post(anon, 'one-time link: passwords differ', h.loginPath, h.loginPath, {
    password: 'one two three four',
    confirm: 'x',
  });
  await post(anon, 'one-time link: too short', h.loginPath, h.loginPath, {
    password: 'short',
    confirm: 'short',
  });
  await get(anon, 'one-time link: unknown', '/portal/login/not-a-token');
  await post(anon, 'sign-in: wrong password', '/portal/login', '/portal/login', {
    email: `<b>${h.ownerEmail}</b>`,
    password: 'wrong',
    next: '/portal/monitors',
  });
  for (let i = 0; i < 5; i++)
    await anon.submit('/portal/login', '/portal/login', { email: 'nobody@clinic.example', password: 'x' });
  await post(anon, 'sign-in: throttled', '/portal/login', '/portal/login', {
    email: 'nobody@clinic.example',
    password: 'x',
  });
  await get(anon, 'asset 404', '/portal/assets/nothing.css');
  shot('form without token', await anon.post('/portal/login', { email: 'a@b.example', password: 'x' }));

  const owner: Client = await signInWithLink(h.url, h.loginPath);
  await get(owner, 'used link', h.loginPath);
  await get(owner, 'sign-in when signed in', '/portal/login?next=/portal/monitors');
  await get(owner, 'checks: empty', '/portal/checks?notice=password-set');
  await get(owner, '404', '/portal/nothing-here');
  shot(
    'CSRF refused',
    await owner.post('/portal/settings/organization/reuse', { reuseWithinHours: '1', _csrf: 'x' }),
  );

  // Run a check
  const PROVIDER = { 'provider.organizationName': "Demo Clinic & Co's", 'provider.npi': '1234567893' };
  const formFor = (memberId: string, extra: Record<string, string> = {}) => {
    const m = member(memberId);
    const d = m.dateOfBirth;
    return {
      tradingPartnerServiceId: 'SANDBOX',
      ...PROVIDER,
      'subscriber.memberId': memberId,
      'subscriber.firstName': m.firstName,
      'subscriber.lastName': m.lastName,
      'subscriber.dateOfBirth': `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6)}`,
      ...extra,
    };
  };
  await get(owner, 'run a check: blank', '/portal/checks/new');
  await post(owner, 'run a check: errors', '/portal/checks/new', '/portal/checks/new', {
    ...formFor('SBX1000001'),
    'provider.npi': '1234567890',
    'subscriber.memberId': '',
    'subscriber.dateOfBirth': '19801345',
    'encounter.serviceTypeCodes': '30, ZZ, <script>',
    'subscriber.firstName': '<i>Jane</i>',
  });
  await post(owner, 'run a check: nothing', '/portal/checks/new', '/portal/checks/new', {});
  const ids: Record<string, string> = {};
  for (const [name, memberId, extra] of [
    ['active', 'SBX1000001', { 'encounter.serviceTypeCodes': '30, 98' }],
    ['inactive', 'SBX1000003', {}],
    ['hmo', 'SBX1000010', {}],
    ['typo', 'SBX1000001', { 'subscriber.memberId': 'SBX100000' }],
    ['wrong name', 'SBX1000001', { 'subscriber.lastName': 'DOUGH' }],
    ['unknown payer', 'SBX1000001', { tradingPartnerServiceId: 'NOPE' }],
  ] as const) {
    const res = await post(
      owner,
      `run a check: ${name}`,
      '/portal/checks/new',
      '/portal/checks/new',
      formFor(memberId, extra),
    );
    const id = res.location?.split('/').pop();
    if (id) {
      await waitForCheck(h, id);
      ids[name] = id;
    }
  }
  if (Object.keys(ids).length !== 6) throw new Error('a check was refused: see the "run a check" pages');
  await get(owner, 'checks', '/portal/checks');
  await get(owner, 'checks: search', `/portal/checks?q=${member('SBX1000001').lastName}`);
  await get(owner, 'checks: search, none', '/portal/checks?q=%3Cnobody%3E');
  await get(
    owner,
    'checks: filters',
    '/portal/checks?status=COMPLETED&verdict=ACTIVE&payer=SANDBOX&from=2020-01-01&to=2099-12-31&tz=America/Chicago',
  );
  await get(
    owner,
    'checks: bad filters',
    '/portal/checks?status=NOPE&verdict=x&payer=%3Cx%3E&from=soon&tz=Mars/Base',
  );
  await get(owner, 'checks: paged', `/portal/checks?before=${ids.hmo}`);
  for (const [name, id] of Object.entries(ids)) {
    await get(owner, `check: ${name}`, `/portal/checks/${id}`);
    await get(owner, `check print: ${name}`, `/portal/checks/${id}/print`);
    await get(owner, `check resubmit: ${name}`, `/portal/checks/${id}/resubmit`);
  }
  await get(owner, 'check: unknown', '/portal/checks/00000000-0000-0000-0000-000000000000');

  // Monitors
  await get(owner, 'monitors: empty', '/portal/monitors');
  const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
  const checkPath = `/portal/checks/${ids.active}`;
  await post(owner, 'monitor: bad dates', checkPath, '/portal/monitors', {
    check: ids.active!,
    schedule: 'dates',
    dates: '2001-01-01, soon',
  });
  await post(owner, 'monitor: bad every', checkPath, '/portal/monitors', {
    check: ids.active!,
    schedule: 'every',
    every: '<0>',
  });
  const created = await post(owner, 'monitor: created', checkPath, '/portal/monitors', {
    check: ids.active!,
    schedule: 'dates',
    dates: `${day(40)}, ${day(80)}`,
  });
  if (!created.location) throw new Error(`creating a monitor answered ${created.status}`);
  await get(owner, 'monitor', created.location);
  // A second app on the same store whose organizations may have one monitor: the limit's page (429).
  const limited = await h.listenPortal({ monitorMaxPerOrganization: 1 });
  const limitedOwner: Client = new PortalClient(limited.url);
  for (const [k, v] of owner.cookies) limitedOwner.cookies.set(k, v);
  await post(limitedOwner, 'monitor: over the limit', checkPath, '/portal/monitors', {
    check: ids.active!,
    schedule: 'every',
    every: '7',
  });
  const monitorPath = created.location.split('?')[0]!;
  await post(owner, 'monitor: pause', monitorPath, `${monitorPath}/pause`, { return: 'detail' });
  await get(owner, 'monitor: paused', `${monitorPath}?notice=monitor-paused`);
  await get(owner, 'monitors', '/portal/monitors?notice=monitor-paused');
  await get(owner, 'monitors: paged', '/portal/monitors?before=mon_00000000-0000-0000-0000-000000000000');

  // API keys
  const keys = formsOf(owner, '/portal/settings/api-keys');
  await get(owner, 'API keys', '/portal/settings/api-keys');
  await keys('API key: errors', '', { name: '', mode: 'live' });
  await keys('API key: long name', '', {
    name: 'x'.repeat(101),
    scopes: ['eligibility:read', 'eligibility:x'],
  });
  await keys('API key: create', '', {
    name: '<b>Front</b> "desk" & co',
    scopes: ['eligibility:read'],
    mode: 'live',
  });
  await get(owner, 'API key: new key', '/portal/settings/api-keys/new-key');
  await get(owner, 'API key: new key again', '/portal/settings/api-keys/new-key');
  const keyList = await get(
    owner,
    'API keys: after create',
    '/portal/settings/api-keys?notice=key-shown-once',
  );
  const keyId = first(keyList.text, /\/portal\/settings\/api-keys\/([^/"]+)\/revoke/);
  await confirmed(owner, 'API key', '/portal/settings/api-keys', `${keyId}/revoke`, 'key-revoked');

  // Team
  const team = formsOf(owner, '/portal/settings/team');
  await get(owner, 'team', '/portal/settings/team');
  await team('team: invite bad email', '/invite', { email: '<nope>', role: 'owner' });
  await team('team: invite twice', '/invite', { email: h.ownerEmail, role: 'member' });
  const invited = await team('team: invited', '/invite', {
    email: 'front.desk@clinic.example',
    role: 'member',
  });
  const inviteLink = new URL(first(invited.text, /id="invite-link"[^>]*value="([^"]+)"/)).pathname;
  await get(anon, 'one-time link: invitation', inviteLink);
  const memberUser: Client = await signInWithLink(h.url, inviteLink);
  await get(memberUser, 'member: checks', '/portal/checks');
  await get(memberUser, 'member: owners only', '/portal/settings/team');
  await get(memberUser, 'member: run a check', '/portal/checks/new');
  const people = (await owner.get('/portal/settings/team')).text;
  const memberId = first(people, /\/portal\/settings\/team\/([^/"]+)\/remove/);
  await team('team: relink', `/${memberId}/link`);
  await team('team: make owner', `/${memberId}/role`, { role: 'owner' });
  await get(owner, 'team: role changed', '/portal/settings/team?notice=role-changed');
  await confirmed(owner, 'team', '/portal/settings/team', `${memberId}/remove`, 'user-removed');

  // Webhooks
  const webhooks = formsOf(owner, '/portal/settings/webhooks');
  await get(owner, 'webhooks', '/portal/settings/webhooks');
  await webhooks('webhooks: bad URL', '/url', { url: 'ftp://<x>' });
  await webhooks('webhooks: URL', '/url', { url: receiverUrl });
  await webhooks('webhooks: no secret', '/secret', { action: 'set', secret: '' });
  await webhooks('webhooks: short secret', '/secret', { action: 'set', secret: 'short' });
  await webhooks('webhooks: generate', '/secret', { action: 'generate' });
  await webhooks('webhooks: reveal', '/secret/reveal');
  await webhooks('webhooks: roll', '/secret/roll');
  const test = await webhooks('webhooks: test', '/test');
  const deliveryPath = test.location!.split('?')[0]!;
  await eventually(async () => (await owner.get(deliveryPath)).text.includes('Delivered'), {
    what: 'the delivery',
  });
  await get(owner, 'webhooks: delivery', `${deliveryPath}?notice=test-sent`);
  await get(owner, 'webhooks: after test', '/portal/settings/webhooks');
  await get(owner, 'webhooks: unknown delivery', '/portal/settings/webhooks/deliveries/nope');
  await webhooks('webhooks: events', '/events', { types: ['nope'] });

  // Organization (last but batches: its time zone shows on every later page)
  const organization = formsOf(owner, '/portal/settings/organization');
  await get(owner, 'organization', '/portal/settings/organization');
  await organization('organization: bad zone', '/time-zone', { timeZone: 'Mars/<Base>' });
  await organization('organization: bad reuse', '/reuse', { reuseWithinHours: '<1000>' });
  await organization('organization: reuse', '/reuse', { reuseWithinHours: '1' });
  await organization('organization: zone', '/time-zone', { timeZone: 'America/Chicago' });
  await get(owner, 'organization: saved', '/portal/settings/organization?notice=time-zone-saved');
  await get(owner, 'checks in the zone', '/portal/checks');
  await organization('organization: reuse off', '/reuse', { reuseWithinHours: '' });
  await get(owner, 'organization: reuse off', '/portal/settings/organization');
  await organization('organization: bad provider', '/providers', {
    providerName: '<Clinic>',
    providerNpi: '1234567890',
  });
  await organization('organization: provider', '/providers', {
    providerName: "Demo Clinic & Co's",
    providerNpi: '1234567893',
  });
  await organization('organization: second provider', '/providers', {
    providerName: 'Dr <Ada> Park',
    providerNpi: '9876543213',
    providerIsDefault: 'yes',
  });
  await get(owner, 'organization: providers', '/portal/settings/organization?notice=provider-added');
  await get(owner, 'run a check: providers', '/portal/checks/new');
  await organization('organization: provider default', '/providers/default', { npi: '1234567893' });
  await organization('organization: provider removed', '/providers/remove', { npi: '9876543213' });
  await organization('organization: provider unknown', '/providers/remove', { npi: '9876543213' });

  // Batches (after every checks list: the order of checks a batch submits at once is not fixed)
  const TEMPLATE = readFileSync(resolve(root, 'examples/batch.example.csv'), 'utf8');
  const upload = async (name: string, csv: string, o: { batchName?: string; submission?: string } = {}) => {
    const form = (await owner.get('/portal/batches')).text;
    const data = new FormData();
    data.append('_csrf', csrfToken(form));
    data.append('submission', o.submission ?? hidden(form, 'submission'));
    data.append('name', o.batchName ?? '');
    data.append('file', new Blob([csv], { type: 'text/csv' }), 'schedule <1>.csv');
    return shot(name, await owner.postMultipart('/portal/batches', data));
  };
  await get(owner, 'batches: empty', '/portal/batches');
  await upload('batch: no file', '');
  await upload('batch: expired form', TEMPLATE, { submission: 'nope' });
  const broken = `${TEMPLATE.trimEnd()}\nSANDBOX,SBX1000001,JANE,DOE,19801345,1234567893,Demo Clinic,30,\n"unclosed,\n`;
  const review = await upload('batch: review', broken, { batchName: '<Monday> & "Tuesday"' });
  await upload('batch: review, none valid', 'payer,member_id\nSANDBOX,\n');
  const sent = shot(
    'batch: send valid',
    await owner.post('/portal/batches', {
      _csrf: csrfToken(review.text),
      submission: hidden(review.text, 'submission'),
      name: hidden(review.text, 'name'),
      csv: broken,
      send: 'valid',
    }),
  );
  const batchPath = sent.location!.split('?')[0]!;
  await eventually(async () => !(await owner.get(batchPath)).text.includes('http-equiv="refresh"'), {
    timeoutMs: 60_000,
    what: 'the batch finishing',
  });
  await get(owner, 'batch', sent.location!);
  await get(owner, 'batch: completed items', `${batchPath}?status=COMPLETED`);
  await get(owner, 'batch: after', `${batchPath}?after=1`);
  await get(owner, 'batches', '/portal/batches');
  await get(owner, 'batch: results CSV', `${batchPath}/results.csv`);
  await get(owner, 'batch: results CSV, unknown', '/portal/batches/nope/results.csv');
  await get(owner, 'batch: template', '/portal/batches/template.csv');
  await get(owner, 'batch: unknown', '/portal/batches/00000000-0000-0000-0000-000000000000');

  await post(owner, 'sign out', '/portal/checks', '/portal/logout', {});
  await get(owner, 'signed out', '/portal/login?notice=signed-out');
}

try {
  await readPages();
} finally {
  await h.stop();
  receiver.close();
}

// What is random to this run beyond normalizeRun's: other ids, form tokens, keys, links, secrets, latencies.
const text = normalizeRun(
  shots
    .join('')
    .replace(/\b([a-z]+)_[0-9A-Za-z]{20}\b/g, '$1_ID')
    .replace(/name="_csrf" value="[^"]+"/g, 'name="_csrf" value="CSRF"')
    .replace(/name="submission" value="[0-9A-Za-z]{24}"/g, 'name="submission" value="SUBMISSION"')
    .replace(/\/portal\/login\/[A-Za-z0-9_-]{20,}/g, '/portal/login/TOKEN')
    .replace(/elig_(test|live)_[A-Za-z0-9]+/g, 'elig_$1_KEY')
    .replace(/whsec_[A-Za-z0-9_-]+/g, 'whsec_SECRET')
    .replace(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})? UTC/g, 'TIME UTC')
    .replace(/\b\d+ ms\b/g, 'N ms'),
);
writeFileSync(process.argv[2]!, text);
console.log(`${shots.length} pages, ${text.length} bytes`);
