/**
 * The one intake (src/checks/intake.ts): repair, validation, the reuse window set apart and the payer's
 * canonical id, in that order, for every entry point; and no entry point repairs or validates a check body
 * on its own.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type PayerLookup, sentPayerId, takeIn } from '../../src/checks/intake.ts';

const body = (over: Record<string, unknown> = {}) => ({
  tradingPartnerServiceId: 'ACME-ALIAS',
  provider: { organizationName: 'Test Clinic', npi: '1234567893' },
  subscriber: { memberId: 'AB-12 34', firstName: 'José', lastName: 'Doe', dateOfBirth: '1980-01-15' },
  ...over,
});

/** A directory of one payer, ACME, also known as ACME-ALIAS; `keeps` says whether its ids keep dashes. */
const directory = (keeps: boolean): PayerLookup => ({
  resolvePayer: (id) =>
    id === 'ACME' || id === 'ACME-ALIAS'
      ? { tradingPartnerServiceId: 'ACME', keepMemberIdSeparators: keeps }
      : undefined,
});

describe('takeIn', () => {
  test('an alias is stored under the canonical id, after repair and validation', () => {
    const taken = takeIn(body(), { payers: directory(false) });
    assert.ok(taken.ok);
    assert.equal(taken.request.tradingPartnerServiceId, 'ACME');
    assert.equal(taken.request.subscriber.memberId, 'AB1234');
    assert.equal(taken.request.subscriber.firstName, 'JOSE');
    assert.equal(taken.request.subscriber.dateOfBirth, '19800115');
    assert.deepEqual(taken.corrections.map((c) => c.field).sort(), [
      'subscriber.dateOfBirth',
      'subscriber.firstName',
      'subscriber.memberId',
    ]);
  });

  test("the payer's member id rule is the directory's", () => {
    const subscriber = { memberId: 'AB-1234', firstName: 'JANE', lastName: 'DOE', dateOfBirth: '19800115' };
    const taken = takeIn(body({ subscriber }), { payers: directory(true) });
    assert.ok(taken.ok, JSON.stringify(taken));
    assert.equal(taken.request.subscriber.memberId, 'AB-1234');
    assert.ok(!taken.corrections.some((c) => c.field === 'subscriber.memberId'));
  });

  test('an id the directory does not know is kept as sent (the worker answers SH01)', () => {
    const taken = takeIn(body({ tradingPartnerServiceId: 'NOBODY' }), { payers: directory(false) });
    assert.ok(taken.ok);
    assert.equal(taken.request.tradingPartnerServiceId, 'NOBODY');
    const alone = takeIn(body(), {});
    assert.ok(alone.ok);
    assert.equal(alone.request.tradingPartnerServiceId, 'ACME-ALIAS');
  });

  test('the reuse window is set apart from the request, and refused where reuse is not allowed', () => {
    const taken = takeIn(body({ reuseWithinHours: 12 }), { payers: directory(false) });
    assert.ok(taken.ok);
    assert.equal(taken.reuseWithinHours, 12);
    assert.equal('reuseWithinHours' in taken.request, false);
    const plain = takeIn(body(), {});
    assert.ok(plain.ok);
    assert.equal(plain.reuseWithinHours, null);
    const monitorRun = takeIn(body({ reuseWithinHours: 12 }), { allowReuse: false });
    assert.ok(monitorRun.ok);
    assert.equal(monitorRun.reuseWithinHours, 0);
  });

  test('every problem at once, named by field, never echoing a value', () => {
    const taken = takeIn(
      body({ provider: { organizationName: 'X', npi: '123' }, subscriber: { firstName: 'ZEBEDEE' } }),
      { payers: directory(false) },
    );
    assert.ok(!taken.ok);
    const fields = taken.problems.map((p) => p.field);
    assert.ok(fields.includes('provider.npi'), fields.join());
    assert.ok(
      fields.some((f) => f.startsWith('subscriber')),
      fields.join(),
    );
    assert.ok(!JSON.stringify(taken.problems).includes('ZEBEDEE'));
    assert.deepEqual(takeIn('not an object').ok, false);
  });

  test('sentPayerId reads the id as sent, or nothing', () => {
    assert.equal(sentPayerId(body()), 'ACME-ALIAS');
    assert.equal(sentPayerId({ tradingPartnerServiceId: 7 }), '');
    assert.equal(sentPayerId(null), '');
  });
});

test('no entry point repairs or validates a check body except through the intake', () => {
  const src = fileURLToPath(new URL('../../src/', import.meta.url));
  const files = (readdirSync(src, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
  const callers = files.filter((f) => {
    const text = readFileSync(join(src, f), 'utf8');
    return /\b(repairCheckRequest|validateCheckRequest)\(/.test(text.replace(/export function \w+\(/g, ''));
  });
  assert.deepEqual(callers, [join('checks', 'intake.ts')]);
});
