/**
 * The check for the chart (issue 16 section 4): a clean printable page and a PDF download with the same
 * content (verdict, patient, plan, the seven service types, errors with what to do), only for the check's
 * own organization.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { submitCheck } from '../../src/checks/submit.ts';
import { PRODUCT_SERVICE_TYPES } from '../../src/contract/check-response.ts';
import { createPortalUser, issuePasswordResetLink } from '../../src/portal/index.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import { member } from '../helpers/members.ts';
import {
  type PortalClient,
  type PortalHarness,
  signInWithLink,
  startPortal,
  waitForCheck,
} from './helpers.ts';

let h: PortalHarness;
let owner: PortalClient;
const ids: Record<string, string> = {};

async function run(memberId: string, wait = true): Promise<string> {
  const sub = await submitCheck(h.service.store.db, h.organizationId, {
    tradingPartnerServiceId: 'SANDBOX',
    provider: { organizationName: 'Demo Clinic', npi: '1234567893' },
    subscriber: member(memberId),
  });
  assert.ok(sub.ok);
  if (wait) await waitForCheck(h, sub.id);
  return sub.id;
}

async function pdf(client: PortalClient, id: string | undefined) {
  const res = await fetch(`${h.url}/portal/checks/${id}/print.pdf`, {
    headers: { cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    redirect: 'manual',
  });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

before(async () => {
  h = await startPortal();
  owner = await signInWithLink(h.url, h.loginPath);
  ids.active = await run('SBX1000001');
  ids.inactive = await run('SBX1000003');
  ids.failed = await run('SBX1000067');
});
after(() => h.stop());

test('the print view is a clean page: verdict first, patient, plan, the seven service types, no navigation', async () => {
  const res = await owner.get(`/portal/checks/${ids.active}/print`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  assert.match(res.text, /<link rel="stylesheet" href="\/portal\/assets\/print.css/);
  assert.doesNotMatch(res.text, /aria-label="Main"/, 'no site navigation');
  assert.match(
    res.text,
    /<p class="verdict verdict-active"><strong>ACTIVE<\/strong> Coverage active: Sandbox PPO Gold, in network<\/p>/,
  );
  const verdictAt = res.text.indexOf('class="verdict');
  assert.ok(verdictAt < res.text.indexOf('id="p-patient"'), 'the verdict comes first');
  const jane = member('SBX1000001');
  assert.match(res.text, new RegExp(`${jane.firstName} ${jane.lastName}`));
  assert.match(res.text, /Sandbox Health Plan \(SANDBOX\)/);
  for (const t of PRODUCT_SERVICE_TYPES) assert.match(res.text, new RegExp(`<th scope="row">${t}</th>`));
  assert.match(res.text, /href="\/portal\/checks\/[0-9a-f-]{36}\/print.pdf" download>Download PDF/);
  const css = await owner.get('/portal/assets/print.css');
  assert.equal(css.status, 200);
  assert.match(css.text, /@media print/);

  const detail = await owner.get(`/portal/checks/${ids.active}`);
  assert.match(detail.text, new RegExp(`href="/portal/checks/${ids.active}/print">Print view`));
});

test('a failed check prints its error with the next step; an inactive one its end date', async () => {
  const failed = await owner.get(`/portal/checks/${ids.failed}/print`);
  assert.match(failed.text, /verdict-failed/);
  assert.match(failed.text, /<strong>67<\/strong> Patient not found/);
  assert.match(failed.text, /Next step: <strong>Please Correct and Resubmit<\/strong>/);
  assert.doesNotMatch(failed.text, /id="p-benefits"/);
  const inactive = await owner.get(`/portal/checks/${ids.inactive}/print`);
  assert.match(
    inactive.text,
    /verdict-inactive"><strong>INACTIVE<\/strong> Coverage INACTIVE since \d{4}-\d{2}-\d{2}/,
  );
});

test('the PDF is a well-formed PDF with the verdict, the benefits and the errors in it', async () => {
  const { res, bytes } = await pdf(owner, ids.active);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/pdf');
  assert.match(
    res.headers.get('content-disposition') ?? '',
    /^attachment; filename="eligibility-check-[0-9a-f-]{36}\.pdf"$/,
  );
  const text = bytes.toString('latin1');
  assert.ok(text.startsWith('%PDF-1.4\n'));
  assert.ok(text.trimEnd().endsWith('%%EOF'));
  assert.match(text, /\(ACTIVE \\226 Coverage active: Sandbox PPO Gold, in network\) Tj/);
  assert.match(text, /\(Outpatient Physical Therapy\) Tj/);
  assert.match(text, /\/BaseFont \/Helvetica /);
  assert.match(text, /\/Count 1 /, 'one page');
  // The cross-reference table points at each object.
  const xrefAt = Number(/startxref\n(\d+)\n/.exec(text)![1]);
  assert.ok(text.slice(xrefAt).startsWith('xref\n'));
  const entries = [...text.slice(xrefAt).matchAll(/^(\d{10}) 00000 n $/gm)].map((m) => Number(m[1]));
  assert.ok(entries.length >= 6);
  for (const [i, offset] of entries.entries()) {
    assert.ok(text.slice(offset).startsWith(`${i + 1} 0 obj\n`), `object ${i + 1}`);
  }
  for (const m of text.matchAll(/<< \/Length (\d+) >>\nstream\n/g)) {
    const start = m.index! + m[0].length;
    assert.equal(text.slice(start + Number(m[1]), start + Number(m[1]) + 10), '\nendstream', 'stream length');
  }

  const failed = (await pdf(owner, ids.failed)).bytes.toString('latin1');
  assert.match(failed, /\(FAILED \\226 Could not check: Patient not found/);
  assert.match(failed, /\(Next step: Please Correct and Resubmit\) Tj/);
});

test('a check still in progress prints as in progress', async () => {
  const silent = await run('SBX1000009', false);
  const page = await owner.get(`/portal/checks/${silent}/print`);
  assert.equal(page.status, 200);
  assert.match(page.text, /verdict-pending">In progress: the payer has not answered yet/);
  const { bytes } = await pdf(owner, silent);
  assert.match(bytes.toString('latin1'), /\(In progress: the payer has not answered yet\) Tj/);
});

test('another organization gets 404 for the print view and the PDF, and signed-out visitors sign in', async () => {
  const db = h.service.store.db;
  const other = await createOrganization(db, 'Other Clinic');
  await createPortalUser(db, { organizationId: other.id, email: 'print@other.example', role: 'member' });
  const link = await issuePasswordResetLink(db, h.service.keys.tokenKey, 'print@other.example');
  const stranger = await signInWithLink(h.url, link.loginPath, 'other clinic passphrase');
  const page = await stranger.get(`/portal/checks/${ids.active}/print`);
  assert.equal(page.status, 404);
  assert.doesNotMatch(page.text, /JANE|SBX1000001/);
  const { res, bytes } = await pdf(stranger, ids.active);
  assert.equal(res.status, 404);
  assert.doesNotMatch(bytes.toString('latin1'), /%PDF/);
  const anonymous = await fetch(`${h.url}/portal/checks/${ids.active}/print.pdf`, { redirect: 'manual' });
  assert.equal(anonymous.status, 303);
});

test('other coverage (SBX1000013, SBX1000014): the detail page, the print view and the PDF name the primary payer', async () => {
  const lucas = await run('SBX1000013');
  const ruth = await run('SBX1000014');
  const detail = await owner.get(`/portal/checks/${lucas}`);
  assert.equal(detail.status, 200);
  assert.match(
    detail.text,
    /Coverage active: Sandbox PPO Gold, in network; another payer is primary: NORTHWIND COMMERCIAL HEALTH \(Commercial\)/,
  );
  assert.match(detail.text, /<h2 id="other-coverage">Other coverage<\/h2>/);
  assert.match(
    detail.text,
    /<tr><th scope="row">Primary \(pays first\)<\/th><td>NORTHWIND COMMERCIAL HEALTH<\/td><td>NWCH1<\/td><td>Commercial<\/td><td>NWC4455667<\/td><td>NW-4410<\/td><td>coordinationOfBenefits 2026-01-01<\/td><\/tr>/,
  );
  const print = await owner.get(`/portal/checks/${ruth}/print`);
  assert.match(print.text, /<h2 id="p-other">Other coverage<\/h2>/);
  assert.match(
    print.text,
    /<tr><th scope="row">Primary \(pays first\)<\/th><td>CONTOSO EMPLOYER GROUP HEALTH PLAN<\/td><td>CEGHP<\/td><td>Medicare Secondary Working Aged Beneficiary or Spouse with Employer Group Health Plan<\/td><td>CEG7781203<\/td><td>-<\/td><td>coordinationOfBenefits 2012-03-01<\/td><\/tr>/,
  );
  assert.match(print.text, /another payer is primary: CONTOSO EMPLOYER GROUP HEALTH PLAN/);
  const text = (await pdf(owner, lucas)).bytes.toString('latin1');
  assert.match(text, /\(Other coverage\) Tj/);
  // Table cells and the banner wrap at their width.
  assert.match(text, /\(NORTHWIND COMMERCIAL\) Tj/);
  assert.match(text, /\(Primary \\\(pays\) Tj/);
  assert.match(text, /primary: NORTHWIND COMMERCIAL HEALTH \\\(Commercial\\\)\) Tj/);
  // A check without other coverage has no such section.
  const jane = await owner.get(`/portal/checks/${ids.active}`);
  assert.doesNotMatch(jane.text, /Other coverage/);
});
