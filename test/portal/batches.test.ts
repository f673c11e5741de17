/**
 * Batches in the portal (issue 17 section 1): a schedule CSV uploaded as multipart/form-data becomes one
 * batch; malformed rows are listed by file line before anything is sent and the valid rows can then be
 * sent; the batch page shows counts by status and verdict and reloads while in progress; the results CSV
 * is byte for byte what `elig batch results ID --csv` prints. Tenants, CSRF and the PHI rule as everywhere.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { parseCsvRows, RESULT_COLUMNS } from '../../src/batches/csv.ts';
import { createPortalUser, issuePasswordResetLink } from '../../src/portal/index.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import { eligInProcess } from '../helpers/cli.ts';
import { eventually } from '../helpers/eventually.ts';
import { member } from '../helpers/members.ts';
import {
  csrfToken,
  type PageResponse,
  PortalClient,
  type PortalHarness,
  signInWithLink,
  startPortal,
} from './helpers.ts';

const TEMPLATE = readFileSync(new URL('../../examples/batch.example.csv', import.meta.url), 'utf8');
const [HEADER, ...TEMPLATE_ROWS] = TEMPLATE.trimEnd().split('\n');
const ROBERT = member('SBX1000004');

let h: PortalHarness;
let owner: PortalClient;
before(async () => {
  h = await startPortal();
  owner = await signInWithLink(h.url, h.loginPath);
});
after(() => h.stop());

/** The Batches page's upload form, filled in as a browser sends it (the page's CSRF token and nonce). */
async function upload(
  c: PortalClient,
  csv: string,
  o: { fileName?: string; name?: string; form?: string } = {},
): Promise<PageResponse> {
  const form = o.form ?? (await c.get('/portal/batches')).text;
  const data = new FormData();
  data.append('_csrf', csrfToken(form));
  data.append('submission', hidden(form, 'submission'));
  data.append('name', o.name ?? '');
  data.append('file', new Blob([csv], { type: 'text/csv' }), o.fileName ?? 'schedule.csv');
  return c.postMultipart('/portal/batches', data);
}

function hidden(pageHtml: string, name: string): string {
  const m = new RegExp(`<input type="hidden" name="${name.replace('.', '\\.')}" value="([^"]*)">`).exec(
    pageHtml,
  );
  assert.ok(m, `the page has a hidden ${name}`);
  return m[1]!
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&#96;', '`')
    .replaceAll('&amp;', '&');
}

async function batchCount(): Promise<number> {
  const { rows } = await h.service.store.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM batches WHERE organization_id = $1',
    [h.organizationId],
  );
  return rows[0]!.n;
}

async function waitForBatch(c: PortalClient, path: string): Promise<string> {
  return eventually(
    async () => {
      const page = await c.get(path);
      assert.equal(page.status, 200);
      if (/http-equiv="refresh"/.test(page.text)) throw new Error('still in progress');
      return page.text;
    },
    { timeoutMs: 30_000, intervalMs: 100, what: `${path} completing` },
  );
}

test('the template CSV: uploaded, followed live to the end, and downloaded as the CLI writes it', async () => {
  const res = await upload(owner, TEMPLATE, { fileName: 'tomorrow.csv' });
  assert.equal(res.status, 303, res.text.slice(0, 500));
  const path = res.location!.split('?')[0]!;
  assert.match(res.location!, /^\/portal\/batches\/[0-9a-f-]{36}\?notice=batch-submitted$/);
  const id = path.split('/').at(-1)!;

  const first = await owner.get(res.location!);
  assert.equal(first.status, 200);
  assert.match(first.text, /Batch submitted/);
  assert.match(first.text, /<h1>tomorrow\.csv<\/h1>/, 'named after the file by default');
  assert.match(first.text, /href="\/portal\/batches\/[^"]+\/results\.csv"[^>]*>Download results CSV/);

  const done = await waitForBatch(owner, path);
  assert.match(done, /3 of 3 checks finished \(100%\)/);
  assert.match(done, /data-count="COMPLETED">3</);
  assert.match(done, /data-count="IN_PROGRESS">0</);
  assert.match(done, /data-verdict="ACTIVE">2</);
  assert.match(done, /data-verdict="INACTIVE">1</);
  assert.equal((done.match(/href="\/portal\/checks\/[0-9a-f-]{36}"/g) ?? []).length, 3, 'each check linked');

  const template = await owner.get('/portal/batches/template.csv');
  assert.equal(template.text, TEMPLATE, 'the page links the template file');
  const list = await owner.get('/portal/batches');
  assert.match(list.text, new RegExp(`href="/portal/batches/${id}"`));
  assert.match(list.text, /tomorrow\.csv<\/td>/);

  const download = await owner.get(`/portal/batches/${id}/results.csv`);
  assert.equal(download.status, 200);
  assert.match(download.headers.get('content-type')!, /^text\/csv/);
  assert.match(download.headers.get('content-disposition')!, /attachment; filename="batch-.*-results\.csv"/);
  const cli = await eligInProcess('batch', 'results', id, '--csv', '--url', h.url, '--key', h.apiKey);
  assert.equal(cli.code, 0, cli.stderr);
  assert.equal(download.text, cli.stdout, 'the same file as `elig batch results --csv`');
  const rows = parseCsvRows(download.text);
  assert.deepEqual(rows[0]!.fields, [...RESULT_COLUMNS]);
  assert.equal(rows.length, 4);
  assert.equal(rows[1]!.fields[RESULT_COLUMNS.indexOf('plan')], 'Sandbox PPO Gold');
});

test('malformed rows are listed by line before anything is sent; then the valid rows can be sent', async () => {
  const csv = [
    HEADER,
    TEMPLATE_ROWS[0],
    'SANDBOX,SBX1000002,JOHN', // line 3: too few fields
    `SANDBOX,${ROBERT.memberId},${ROBERT.firstName},${ROBERT.lastName},${ROBERT.dateOfBirth},1234567890,Demo Clinic,,`, // line 4: NPI check digit
    TEMPLATE_ROWS[2],
  ].join('\r\n');
  const before = await batchCount();
  const review = await upload(owner, csv, { name: 'Monday' });
  assert.equal(review.status, 200);
  assert.match(review.text, /2 rows have problems/);
  assert.match(review.text, /Nothing has been sent yet\. 2 rows are ready to check\./);
  assert.match(review.text, /<th scope="row">3<\/th><td>3 fields where the header names 9<\/td>/);
  assert.match(review.text, /<th scope="row">4<\/th><td>Invalid request: [^<]*npi/i);
  assert.equal(await batchCount(), before, 'nothing was submitted');

  const send = await owner.post('/portal/batches', {
    _csrf: csrfToken(review.text),
    submission: hidden(review.text, 'submission'),
    name: hidden(review.text, 'name'),
    csv: hidden(review.text, 'csv'),
    send: 'valid',
  });
  assert.equal(send.status, 303, send.text.slice(0, 400));
  const page = await waitForBatch(owner, send.location!.split('?')[0]!);
  assert.match(page, /<h1>Monday<\/h1>/);
  assert.match(page, /2 of 2 checks finished/);
  assert.match(page, /data-count="rejected">1</, 'the row a submit refuses is counted as rejected');
  assert.equal(await batchCount(), before + 1);

  // The same form sent again (a double click, the back button): the same batch, not a second one.
  const again = await owner.post('/portal/batches', {
    _csrf: csrfToken(review.text),
    submission: hidden(review.text, 'submission'),
    name: hidden(review.text, 'name'),
    csv: hidden(review.text, 'csv'),
    send: 'valid',
  });
  assert.equal(again.location, send.location);
  assert.equal(await batchCount(), before + 1);

  const logs = h.logs.text;
  for (const phi of [ROBERT.lastName, ROBERT.memberId, ROBERT.dateOfBirth, 'SBX1000001']) {
    assert.ok(!logs.includes(phi), 'no schedule content in the logs');
  }
  assert.match(logs, /batch submitted from the portal/);
});

test('a file with no valid row: problems listed, no button to send, nothing created', async () => {
  const before = await batchCount();
  const empty = await upload(owner, `${HEADER}\nSANDBOX,X\n`);
  assert.equal(empty.status, 400);
  assert.match(empty.text, /No row can be checked/);
  assert.doesNotMatch(empty.text, /name="send"/);
  const wrongHeader = await upload(owner, 'payer,member\nSANDBOX,X\n');
  assert.equal(wrongHeader.status, 400);
  assert.match(wrongHeader.text, /<th scope="row">1<\/th><td>missing column member_id, first_name/);
  const nothing = await upload(owner, '');
  assert.equal(nothing.status, 400);
  assert.match(nothing.text, /Choose a CSV file/);
  assert.equal(await batchCount(), before);
});

test('refused without the CSRF token, from another site, or as a broken multipart body; never a 500', async () => {
  const form = (await owner.get('/portal/batches')).text;
  const before = await batchCount();
  const noToken = new FormData();
  noToken.append('submission', hidden(form, 'submission'));
  noToken.append('file', new Blob([TEMPLATE]), 'x.csv');
  assert.equal((await owner.postMultipart('/portal/batches', noToken)).status, 403);

  const crossSite = await upload(owner, TEMPLATE, { form });
  assert.equal(crossSite.status, 303, 'control: the same form from the portal itself is accepted');
  const foreign = new FormData();
  foreign.append('_csrf', csrfToken(form));
  foreign.append('submission', 'A'.repeat(24));
  foreign.append('file', new Blob([TEMPLATE]), 'x.csv');
  const refused = await owner.postMultipart('/portal/batches', foreign, {
    origin: 'https://evil.example',
  });
  assert.equal(refused.status, 403);

  const broken = await owner.post(
    '/portal/batches',
    {},
    { 'content-type': 'multipart/form-data; boundary=nothing-here' },
  );
  assert.equal(broken.status, 400);
  assert.match(broken.text, /Request not understood/);
  assert.equal(await batchCount(), before + 1, 'only the control batch');
});

test("another organization's batch is a 404, page and download alike; signed out goes to sign in", async () => {
  const res = await upload(owner, TEMPLATE);
  const path = res.location!.split('?')[0]!;
  const db = h.service.store.db;
  const other = await createOrganization(db, 'Other Clinic');
  await createPortalUser(db, {
    organizationId: other.id,
    email: 'owner@batches-other.example',
    role: 'owner',
  });
  const link = await issuePasswordResetLink(db, h.service.keys.tokenKey, 'owner@batches-other.example');
  const stranger = await signInWithLink(h.url, link.loginPath, 'other clinic passphrase');
  for (const p of [path, `${path}/results.csv`, '/portal/batches/not-a-uuid']) {
    const page = await stranger.get(p);
    assert.equal(page.status, 404, p);
    assert.doesNotMatch(page.text, /SBX100000|Sandbox PPO/);
  }
  const theirList = await stranger.get('/portal/batches');
  assert.doesNotMatch(theirList.text, new RegExp(path));
  const anonymous = await new PortalClient(h.url).get(path);
  assert.equal(anonymous.status, 303);
  assert.match(anonymous.location!, /^\/portal\/login/);
});

test('a batch in progress: its page reloads itself and shows how far it is', async () => {
  // A batch whose checks are all still queued, written directly so that no worker can finish it first.
  const id = '01900000-0000-7000-8000-00000000b001';
  await h.service.store.db.query(
    `INSERT INTO batches (id, organization_id, name, total, pending, completed, active)
     VALUES ($1, $2, 'Queued', 8, 6, 2, 2)`,
    [id, h.organizationId],
  );
  const page = await owner.get(`/portal/batches/${id}`);
  assert.equal(page.status, 200);
  assert.match(page.text, /<meta http-equiv="refresh" content="2">/);
  assert.match(page.text, /<progress value="2" max="8"/);
  assert.match(page.text, /2 of 8 checks finished \(25%\)/);
  assert.match(page.text, /data-count="IN_PROGRESS">6</);
  assert.match(page.text, /<span class="badge badge-in_progress">In progress<\/span>/);
  const csv = await owner.get(`/portal/batches/${id}/results.csv`);
  assert.equal(csv.text, `${RESULT_COLUMNS.join(',')}\r\n`, 'no check yet: the header alone');
});
