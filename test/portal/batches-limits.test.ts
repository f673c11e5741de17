/**
 * Batch uploads within bounds (issue 26 item 1), through POST /portal/batches: a file past the batch row
 * limit is refused without reading the rest, a row longer than MAX_SCHEDULE_ROW_CHARS is named by line and
 * never echoed back, and a file of many bad rows lists the first ones and counts the rest.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { MAX_SCHEDULE_PROBLEMS } from '../../src/batches/csv.ts';
import { MAX_BATCH_CHECKS } from '../../src/contract/batch.ts';
import {
  csrfToken,
  type PageResponse,
  type PortalClient,
  type PortalHarness,
  signInWithLink,
  startPortal,
} from './helpers.ts';

const TEMPLATE = readFileSync(new URL('../../examples/batch.example.csv', import.meta.url), 'utf8');
const [HEADER, ROW] = TEMPLATE.trimEnd().split('\n') as [string, string];

let h: PortalHarness;
let owner: PortalClient;
before(async () => {
  h = await startPortal();
  owner = await signInWithLink(h.url, h.loginPath);
});
after(() => h.stop());

async function upload(csv: string): Promise<PageResponse> {
  const form = (await owner.get('/portal/batches')).text;
  const data = new FormData();
  data.append('_csrf', csrfToken(form));
  data.append('submission', /name="submission" value="([^"]+)"/.exec(form)![1]!);
  data.append('name', '');
  data.append('file', new Blob([csv], { type: 'text/csv' }), 'schedule.csv');
  return owner.postMultipart('/portal/batches', data);
}

async function batchCount(): Promise<number> {
  const { rows } = await h.service.store.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM batches WHERE organization_id = $1',
    [h.organizationId],
  );
  return rows[0]!.n;
}

test('a row of 100,000 commas is named by its line and not sent back; the other rows can still be sent', async () => {
  const commas = ','.repeat(100_000);
  const review = await upload(`${HEADER}\n${ROW}\n${commas}\n${ROW}\n`);
  assert.equal(review.status, 200);
  assert.match(review.text, /<th scope="row">3<\/th><td>line 3 is longer than 1,000 characters/);
  assert.match(review.text, /2 rows are ready to check/);
  assert.ok(!review.text.includes(',,,,,,,,,,,,'), 'the long row is not echoed');
  assert.ok(review.text.length < 20_000, `a small page (${review.text.length} characters)`);
});

test('a header of 8 MB of commas answers a short page naming line 1', async () => {
  const page = await upload(','.repeat(8 * 1024 * 1024 - 16 * 1024));
  assert.equal(page.status, 400);
  assert.match(page.text, /<th scope="row">1<\/th><td>line 1 is longer than 1,000 characters/);
  assert.ok(page.text.length < 20_000, `a small page (${page.text.length} characters)`);
});

test('past the batch row limit the file is refused, valid rows or not, and nothing is sent', async () => {
  const before = await batchCount();
  const page = await upload(`${HEADER}\n${`${ROW}\n`.repeat(MAX_BATCH_CHECKS + 1)}`);
  assert.equal(page.status, 400);
  assert.match(page.text, /more than 10,000 rows/);
  assert.equal(await batchCount(), before);
});

test('many bad rows: the first are listed by line, the rest counted as "and N more"', async () => {
  const page = await upload(`${HEADER}\n${`${','.repeat(8)}\n`.repeat(3_000)}`);
  assert.equal(page.status, 400);
  assert.match(page.text, /3,000 rows have problems/);
  assert.equal(page.text.match(/<th scope="row">\d+<\/th>/g)?.length, MAX_SCHEDULE_PROBLEMS);
  assert.match(page.text, /And 2,500 more\./);
});
