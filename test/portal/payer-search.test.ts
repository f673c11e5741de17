/**
 * /portal/payers?q=: the run-a-check payer field's suggestions. Signed in only; ranked as GET /api/payers
 * ranks (typos, abbreviations, states); ids and names only, at most ten.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { PayerEntry } from '../../src/payers/connector.ts';
import { createPayerDirectory, sandboxPayerEntry } from '../../src/payers/directory.ts';
import { SUGGESTIONS } from '../../src/portal/routes/payer-search.ts';
import { payerList } from '../helpers/payer-list.ts';
import { type PortalClient, type PortalHarness, signInWithLink, startPortal } from './helpers.ts';

const stub = (name: string) => ({ name, send: async () => '' });
const entries: PayerEntry[] = [
  sandboxPayerEntry(stub('sandbox')),
  ...payerList(5000).map((p) => ({
    tradingPartnerServiceId: p.id,
    payerName: p.name,
    payerId: p.id,
    aliases: p.aliases,
    ...(p.states ? { states: p.states } : {}),
    connector: stub('x12-json'),
  })),
];

let h: PortalHarness;
let large: { url: string; close(): Promise<void> };
let owner: PortalClient;
before(async () => {
  h = await startPortal();
  large = await h.listenPortal({ payers: createPayerDirectory(entries) });
  owner = await signInWithLink(large.url, h.loginPath);
});
after(async () => {
  await large.close();
  await h.stop();
});

const suggest = async (q: string) => {
  const res = await owner.get(`/portal/payers?q=${encodeURIComponent(q)}`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  return JSON.parse(res.text).payers as { id: string; name: string }[];
};

test('signed out: redirected to sign in, no payer named', async () => {
  const res = await fetch(`${large.url}/portal/payers?q=aetna`, { redirect: 'manual' });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get('location'), '/portal/login?next=%2Fportal%2Fpayers');
  assert.doesNotMatch(await res.text(), /Aetna/);
  // An API key is not a portal session.
  const withKey = await fetch(`${large.url}/portal/payers?q=aetna`, {
    redirect: 'manual',
    headers: { authorization: `Key ${h.apiKey}` },
  });
  assert.equal(withKey.status, 303);
});

test('suggestions are ranked like the API: abbreviations, states, typos; ids and names only', async () => {
  assert.equal((await suggest('bcbs tx'))[0]!.id, '84980');
  assert.equal((await suggest('blue cross texas'))[0]!.id, '84980');
  assert.equal((await suggest('aetan'))[0]!.id, '60054');
  assert.equal((await suggest('uhc texas'))[0]!.id, '87726CP');
  const health = await suggest('health');
  assert.equal(health.length, SUGGESTIONS);
  assert.deepEqual(Object.keys(health[0]!), ['id', 'name']);
  assert.deepEqual(await suggest('  '), [], 'an empty field suggests nothing');
  assert.deepEqual(await suggest('zzqx'), []);
  assert.equal((await suggest(`bcbs tx ${'x'.repeat(5000)}`))[0]!.id, '84980', 'a long query is cut');
});

test('the run-a-check page points its payer field at the suggestions', async () => {
  const page = await owner.get('/portal/checks/new');
  assert.match(page.text, /list="f-tradingPartnerServiceId-list" data-payer-search="\/portal\/payers"/);
});
