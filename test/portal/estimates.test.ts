/**
 * Estimates in the portal (docs/estimates.md): the check page's "Collect at desk" panel (the submitted
 * charges, and other charges estimated against the stored result), the print view and PDF, and the
 * owners' fee schedule upload (bad rows by line, nothing applied; members may not open it).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { inflateSync } from 'node:zlib';
import { submitCheck } from '../../src/checks/submit.ts';
import { member } from '../helpers/members.ts';
import {
  csrfToken,
  type PortalClient,
  type PortalHarness,
  signInWithLink,
  startPortal,
  waitForCheck,
} from './helpers.ts';

let h: PortalHarness;
let owner: PortalClient;

async function run(memberId: string, charges?: object[]): Promise<string> {
  const sub = await submitCheck(h.service.store.db, h.organizationId, {
    tradingPartnerServiceId: 'SANDBOX',
    provider: { organizationName: 'Demo Clinic', npi: '1234567893' },
    subscriber: member(memberId),
    ...(charges ? { encounter: { charges } } : {}),
  });
  assert.ok(sub.ok, JSON.stringify(sub));
  await waitForCheck(h, sub.id);
  return sub.id;
}

before(async () => {
  h = await startPortal();
  owner = await signInWithLink(h.url, h.loginPath);
});
after(() => h.stop());

const WORKED = [
  { serviceType: 'Mental Health', amount: 120 },
  { serviceTypeCode: 'AD', amount: 800 },
  { serviceTypeCode: '33', amount: 60 },
];

test('the check page shows the submitted charges with their steps, and the total to collect', async () => {
  const id = await run('SBX1000001', WORKED);
  const page = await owner.get(`/portal/checks/${id}`);
  assert.equal(page.status, 200);
  assert.match(page.text, /<h2 id="collect-h">Collect at desk<\/h2>/);
  assert.match(page.text, /Occupational Therapy \(AD\): \$800\.00 allowed/);
  assert.match(page.text, /Patient pays \$560\.00, plan pays \$240\.00/);
  assert.match(page.text, /toward the deductible: \$500\.00 of the \$500\.00 remaining/);
  assert.match(page.text, /coinsurance 20% of \$300\.00 = \$60\.00/);
  assert.match(page.text, /Collect \$600\.00 \(plan pays \$380\.00\)/);
});

test('charges entered on the page are estimated against the stored result, and nothing is stored', async () => {
  const id = await run('SBX1000001');
  const page = await owner.get(`/portal/checks/${id}`);
  assert.doesNotMatch(page.text, /The charges sent with this check/);
  const res = await owner.post(`/portal/checks/${id}/estimate`, {
    _csrf: csrfToken(page.text),
    serviceType: ['Chiropractic', 'Mental Health', '', ''],
    amount: ['60', '120', '', ''],
    procedureCode: ['', '', '', ''],
  });
  assert.equal(res.status, 200);
  assert.match(res.text, /Chiropractic \(33\): \$60\.00 allowed/);
  assert.match(res.text, /Collect \$40\.00 \(plan pays \$140\.00\)/);
  const again = await owner.get(`/portal/checks/${id}`);
  assert.doesNotMatch(again.text, /Collect \$40\.00/, 'an estimate asked on the page is not stored');
});

test('a charge the page cannot estimate is said, with its row, and nothing else changes', async () => {
  const id = await run('SBX1000001');
  const page = await owner.get(`/portal/checks/${id}`);
  const res = await owner.post(`/portal/checks/${id}/estimate`, {
    _csrf: csrfToken(page.text),
    serviceType: ['Mental Health'],
    amount: [''],
    procedureCode: ['NOFEE1'],
  });
  assert.equal(res.status, 400);
  assert.match(
    res.text,
    /Row 1\.amount is absent and procedure code NOFEE1 is not in the organization&#39;s fee schedule|Row 1\.amount is absent and procedure code NOFEE1 is not in the organization's fee schedule/,
  );
});

test('the print view and the PDF carry the same Collect at desk section', async () => {
  const id = await run('SBX1000001', WORKED);
  const print = await owner.get(`/portal/checks/${id}/print`);
  assert.match(print.text, /<h2 id="p-collect">Collect at desk<\/h2>/);
  assert.match(print.text, /Patient pays \$25\.00, plan pays \$95\.00/);
  const pdf = await fetch(`${h.url}/portal/checks/${id}/print.pdf`, {
    headers: { cookie: [...owner.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
  });
  const bytes = Buffer.from(await pdf.arrayBuffer());
  assert.match(pdfText(bytes), /Collect at desk/);
  assert.match(pdfText(bytes), /Collect \$600\.00/);
});

test('fee schedule: an owner uploads a file; a bad row is listed by line and nothing is applied', async () => {
  const page = await owner.get('/portal/settings/fees');
  assert.equal(page.status, 200);
  assert.match(page.text, /No fee schedule yet/);
  const upload = (csv: string) => {
    const form = new FormData();
    form.append('_csrf', csrfToken(page.text));
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'fees.csv');
    return owner.postMultipart('/portal/settings/fees', form);
  };
  const good = await upload('procedure_code,payer_id,allowed_amount\n97165,,800\n90837,SANDBOX,120\n');
  assert.equal(good.status, 303);
  const shown = await owner.get(good.location!);
  assert.match(shown.text, /Fee schedule saved/);
  assert.match(shown.text, /2 rows/);
  const bad = await upload('procedure_code,allowed_amount\n97110,45\n97112,=HYPERLINK("x")\n');
  assert.equal(
    bad.status,
    400,
    bad.text
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .slice(0, 600),
  );
  assert.match(bad.text, /Line 3: a cell starts like a spreadsheet formula/);
  assert.match((await owner.get('/portal/settings/fees')).text, /2 rows/, 'the bad file changed nothing');
  // The schedule now prices a charge sent with a procedure code only.
  const id = await run('SBX1000001', [{ serviceTypeCode: 'AD', procedureCode: '97165' }]);
  assert.match((await owner.get(`/portal/checks/${id}`)).text, /\$800\.00 allowed \(fee schedule\)/);
});

test('a member may not open the fee schedule', async () => {
  const TEAM = '/portal/settings/team';
  const res = await owner.submit(TEAM, `${TEAM}/invite`, {
    email: 'desk@demo-clinic.example',
    role: 'member',
  });
  assert.equal(res.status, 201);
  const url = /id="invite-link"[^>]*value="([^"]+)"/.exec(res.text)![1]!;
  const desk = await signInWithLink(h.url, new URL(url).pathname, 'desk@demo-clinic.example passphrase');
  const page = await desk.get('/portal/settings/fees');
  assert.equal(page.status, 403);
  assert.doesNotMatch(page.text, /Upload a schedule/);
});

/** The text drawn by a PDF's content streams (FlateDecode or plain). */
function pdfText(bytes: Buffer): string {
  const out: string[] = [];
  const raw = bytes.toString('latin1');
  for (const m of raw.matchAll(/stream\r?\n/g)) {
    const start = m.index! + m[0].length;
    const end = raw.indexOf('endstream', start);
    const chunk = bytes.subarray(start, end);
    try {
      out.push(inflateSync(chunk).toString('latin1'));
    } catch {
      out.push(chunk.toString('latin1'));
    }
  }
  return out.join('\n');
}
