/**
 * Payer profiles end to end (docs/payers.md "Payer profiles: how each payer is asked"): fake payers that read
 * service type codes the way real ones differ, each asked with the right `stcStrategy` and with a wrong one.
 * Asked the right way, the seven entries rest on the payer's own rows; asked the wrong way, they fall back to
 * the plan-level rows, and each entry's confidence says which.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { PayerEntry, StcStrategy } from '../../src/payers/connector.ts';
import { PRODUCT_INQUIRY_CODES } from '../../src/workers/inquiries.ts';
import { parse271All } from '../../src/x12/parse271.ts';
import {
  client,
  sandboxRequest,
  startTestService,
  type TestService,
  waitForResult,
} from '../helpers/service.ts';
import { createStcPayer, eqCodes, type StcBehaviour, type StcPayer } from '../payers/fakes/stc-payer.ts';

const JANE = { memberId: 'SBX1000001', firstName: 'JANE', lastName: 'DOE', dateOfBirth: '19800115' };
const PLAN_LEVEL = 'derived from plan-level benefits (30)';
const FALLBACK = /^(\w+) was requested but the payer answered it only through fallback rows$/;

const fakes = new Map<string, StcPayer>();
function payer(id: string, behaviour: StcBehaviour, strategy?: StcStrategy, refuse?: string): PayerEntry {
  const connector = createStcPayer(behaviour, { refuse });
  fakes.set(id, connector);
  return {
    tradingPartnerServiceId: id,
    payerName: `${id} Health`,
    payerId: id,
    connector,
    stcStrategy: strategy,
  };
}

let svc: TestService;
before(async () => {
  svc = await startTestService({
    payers: [
      payer('FIRSTREP-REPEAT', 'first-repetition'),
      payer('FIRSTREP-LOOPS', 'first-repetition', 'loops'),
      payer('FIRSTEQ-LOOPS', 'first-eq', 'loops'),
      payer('FIRSTEQ-SEP', 'first-eq', 'separate'),
      payer('GENERIC-REPEAT', 'generic-only', 'repeat'),
      payer('GENERIC-ONLY', 'generic-only', 'generic-only'),
      payer('REFUSES-AF', 'repeat', 'separate', 'AF'),
      payer('REFUSES-ALL', 'repeat', 'generic-only', '30'),
    ],
  });
});
after(() => svc.stop());

async function check(tradingPartnerServiceId: string, extra: object = {}) {
  const api = client(svc.url, svc.apiKey);
  const res = await api.post('/api/eligibility', {
    ...sandboxRequest(JANE),
    ...extra,
    tradingPartnerServiceId,
  });
  assert.equal(res.status, 202);
  return waitForResult(api, res.body.id);
}

/** Every entry matched the payer's own rows for its service type: no plan-level fallback, no fallback note. */
function assertOwnRows(body: any): void {
  assert.equal(body.status, 'COMPLETED');
  assert.equal(body.benefits.length, 7);
  for (const entry of body.benefits) {
    const [matchedBy, ...rest] = entry.confidence.criteria as string[];
    assert.notEqual(matchedBy, PLAN_LEVEL, entry.serviceType);
    assert.ok(!rest.some((c) => FALLBACK.test(c)), entry.serviceType);
  }
  assert.equal(body.confidence.criteria.allServiceTypesMatchedDirectly, true);
}

/** Every entry came from the plan-level rows, and says that the code asked for it was answered only so. */
function assertPlanFallback(body: any): void {
  assert.equal(body.status, 'COMPLETED');
  assert.equal(body.benefits.length, 7);
  for (const entry of body.benefits) {
    const criteria = entry.confidence.criteria as string[];
    assert.equal(criteria[0], PLAN_LEVEL, entry.serviceType);
    assert.ok(
      criteria.some((c) => FALLBACK.test(c)),
      entry.serviceType,
    );
    assert.ok(entry.confidence.score <= 0.65, 'the plan-level penalty (0.35) at least');
  }
  assert.equal(body.confidence.criteria.allServiceTypesMatchedDirectly, false);
}

test('a payer reading only the first repetition of EQ01: loops gets every product its own rows, repeat does not', async () => {
  assertPlanFallback(await check('FIRSTREP-REPEAT'));
  assert.deepEqual(eqCodes(fakes.get('FIRSTREP-REPEAT')!.received[0]!), [[...PRODUCT_INQUIRY_CODES]]);

  const body = await check('FIRSTREP-LOOPS');
  assertOwnRows(body);
  const [sent] = fakes.get('FIRSTREP-LOOPS')!.received;
  assert.deepEqual(
    eqCodes(sent!),
    PRODUCT_INQUIRY_CODES.map((code) => [code]),
  );
  // A check with codes asks those, one EQ loop each.
  await check('FIRSTREP-LOOPS', { encounter: { serviceTypeCodes: ['PT', 'MH'] } });
  assert.deepEqual(eqCodes(fakes.get('FIRSTREP-LOOPS')!.received[1]!), [['PT'], ['MH']]);
});

test('a payer reading only the first EQ: separate sends one 270 per code and merges the answers', async () => {
  assertPlanFallback(await check('FIRSTEQ-LOOPS'));

  const body = await check('FIRSTEQ-SEP');
  assertOwnRows(body);
  const fake = fakes.get('FIRSTEQ-SEP')!;
  assert.deepEqual(
    fake.received.map(eqCodes),
    PRODUCT_INQUIRY_CODES.map((code) => [[code]]),
  );
  // One payer call (and log line) per inquiry.
  const calls = svc.logs.lines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.msg === 'payer call' && l.checkId === body.id);
  assert.deepEqual(
    calls.map((l) => l.outcome),
    PRODUCT_INQUIRY_CODES.map(() => 'ok'),
  );
  // The result's x12 keeps every answer: seven interchanges a client reads back with parse271All.
  const answers = parse271All(body.x12);
  assert.equal(answers.length, 7);
  assert.ok(answers.every((a) => a.kind === '271'));
  // The plan-level row each 271 repeats is listed once; every product's rows are there with their codes.
  const active = body.benefitsInformation.filter((b: any) => b.code === '1');
  assert.equal(active.length, 1);
  const codes = new Set(body.benefitsInformation.flatMap((b: any) => b.serviceTypeCodes ?? []));
  for (const code of PRODUCT_INQUIRY_CODES) assert.ok(codes.has(code), code);
});

test('a payer answering only 30: generic-only gets its full answer, asking the products gets the plan rows', async () => {
  assertPlanFallback(await check('GENERIC-REPEAT'));
  assertOwnRows(await check('GENERIC-ONLY', { encounter: { serviceTypeCodes: ['PT'] } }));
  assert.deepEqual(eqCodes(fakes.get('GENERIC-ONLY')!.received[0]!), [['30']]);
});

test('separate: one refused inquiry leaves the others standing, with a warning; all refused fails as before', async () => {
  const body = await check('REFUSES-AF');
  assert.equal(body.status, 'COMPLETED');
  const warning = body.warnings.find((w: any) => w.code === 'INQUIRY_REFUSED');
  assert.match(warning.description, /service type code AF \(AAA 15\)/);
  const speech = body.benefits.find((e: any) => e.serviceType === 'Speech Therapy');
  assert.equal(speech.confidence.criteria[0], PLAN_LEVEL);
  assert.ok(
    speech.confidence.criteria.includes(
      'AF was requested but the payer answered it only through fallback rows',
    ),
  );
  const pt = body.benefits.find((e: any) => e.serviceType === 'Outpatient Physical Therapy');
  assert.equal(pt.confidence.criteria[0], 'service type matched directly (PT)');
  // The refused answer is in the x12 too.
  assert.equal(parse271All(body.x12).length, 7);
  assert.ok(!JSON.stringify(body.warnings).includes(JANE.memberId));

  const refused = await check('REFUSES-ALL');
  assert.equal(refused.status, 'FAILED');
  assert.deepEqual(
    refused.errors.map((e: any) => e.code),
    ['15'],
  );
});
