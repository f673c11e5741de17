/** Request repair, one rule at a time (src/checks/request-repair.ts): what is changed, what is reported, what is left. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateCheckRequest } from '../../src/checks/request.ts';
import { repairCheckRequest } from '../../src/checks/request-repair.ts';
import { build270 } from '../../src/x12/build270.ts';

const VALID = {
  tradingPartnerServiceId: 'SANDBOX',
  provider: { organizationName: 'Test Clinic', npi: '1234567893' },
  subscriber: { memberId: 'SBX1000001', firstName: 'Jane', lastName: 'Doe', dateOfBirth: '19800115' },
};

type Subscriber = Record<string, unknown>;
const withSubscriber = (changes: Subscriber) => ({
  ...VALID,
  subscriber: { ...VALID.subscriber, ...changes },
});

function repaired(body: unknown, options = {}) {
  const r = repairCheckRequest(body, options);
  return {
    ...r,
    subscriber: (r.body as { subscriber: Subscriber }).subscriber,
    codes: r.corrections.map((c) => `${c.field} ${c.code}`),
  };
}

test('a request that needs nothing is returned as it came, with no corrections', () => {
  const r = repairCheckRequest(VALID);
  assert.equal(r.body, VALID);
  assert.deepEqual(r.corrections, []);
  assert.deepEqual(repairCheckRequest('not an object'), { body: 'not an object', corrections: [] });
});

test('diacritics are folded to the plain letter, in capitals: José → JOSE, Müller-Łukasz → MULLER-LUKASZ', () => {
  const r = repaired(withSubscriber({ firstName: 'José', lastName: 'Müller-Łukasz', middleName: 'Ærin' }));
  assert.equal(r.subscriber.firstName, 'JOSE');
  assert.equal(r.subscriber.lastName, 'MULLER-LUKASZ');
  assert.equal(r.subscriber.middleName, 'AERIN');
  assert.deepEqual(r.codes, [
    'subscriber.lastName NAME_DIACRITICS_FOLDED',
    'subscriber.firstName NAME_DIACRITICS_FOLDED',
    'subscriber.middleName NAME_DIACRITICS_FOLDED',
  ]);
  // A decomposed é (e + combining accent) is the same letter and folds the same way.
  assert.equal(repaired(withSubscriber({ firstName: 'Jose\u0301' })).subscriber.firstName, 'JOSE');
});

test('marks of other scripts are part of their letters: such a name is left as written', () => {
  for (const name of ['Дмитрий', 'हिंदी', '김민준']) {
    const r = repaired(withSubscriber({ firstName: name }));
    assert.equal(r.subscriber.firstName, name);
    assert.deepEqual(r.corrections, []);
  }
});

test("apostrophes and periods are removed from person names: O'Brien → OBRIEN, St. John → ST JOHN", () => {
  const r = repaired(withSubscriber({ lastName: 'O’Brien', firstName: 'St. John' }));
  assert.equal(r.subscriber.lastName, 'OBRIEN');
  assert.equal(r.subscriber.firstName, 'ST JOHN');
  assert.deepEqual(r.codes, [
    'subscriber.lastName NAME_PUNCTUATION_REMOVED',
    'subscriber.firstName NAME_PUNCTUATION_REMOVED',
  ]);
  // An organization's name keeps its punctuation (St. Mary's Clinic is its name), but not its accents.
  const org = repairCheckRequest({
    ...VALID,
    provider: { organizationName: "St. Mary's Clínic", npi: '1234567893' },
  });
  assert.equal((org.body as typeof VALID).provider.organizationName, "ST. MARY'S CLINIC");
  assert.deepEqual(
    org.corrections.map((c) => c.code),
    ['NAME_DIACRITICS_FOLDED'],
  );
});

test('spaces at the ends and doubled spaces are removed, the case kept', () => {
  const r = repaired(withSubscriber({ firstName: '  Mary   Ann ' }));
  assert.equal(r.subscriber.firstName, 'Mary Ann');
  assert.deepEqual(r.codes, ['subscriber.firstName NAME_SPACES_REMOVED']);
});

test('a suffix at the end of the last name moves to subscriber.suffix (CAQH CORE rule 258)', () => {
  for (const [lastName, rest, suffix] of [
    ['Doe Jr', 'Doe', 'JR'],
    ['Doe, Jr.', 'Doe', 'JR'],
    ['DOE SR', 'DOE', 'SR'],
    ['Doe II', 'Doe', 'II'],
    ['Van Doe III', 'Van Doe', 'III'],
    ['Doe iv', 'Doe', 'IV'],
  ]) {
    const r = repaired(withSubscriber({ lastName }));
    assert.equal(r.subscriber.lastName, rest, lastName);
    assert.equal(r.subscriber.suffix, suffix, lastName);
    assert.deepEqual(r.codes, ['subscriber.lastName NAME_SUFFIX_MOVED'], lastName);
  }
  // The suffix goes out in NM107, not in the last name.
  const x12 = build270(
    {
      ...(repaired(withSubscriber({ lastName: 'Doe Jr' })).body as typeof VALID),
      traceNumber: 'T1',
      payer: { name: 'P', id: 'P1' },
    },
    { senderId: 'S', receiverId: 'R', interchangeControlNumber: 1, now: new Date(0), usageIndicator: 'T' },
  );
  assert.match(x12, /NM1\*IL\*1\*Doe\*Jane\*\*\*JR\*MI\*SBX1000001~/);
});

test('nothing that could be part of the name itself is moved', () => {
  for (const lastName of ['Junior', 'Jr', 'Doejr', 'Sr-Doe', 'Li', 'Ivy', 'Doe Jr Smith']) {
    const r = repaired(withSubscriber({ lastName }));
    assert.equal(r.subscriber.lastName, lastName);
    assert.equal(r.subscriber.suffix, undefined);
  }
  // A suffix already given and different from the one in the last name: ambiguous, so both stay.
  const r = repaired(withSubscriber({ lastName: 'Doe Jr', suffix: 'III' }));
  assert.equal(r.subscriber.lastName, 'Doe Jr');
  assert.equal(r.subscriber.suffix, 'III');
  // The same suffix in both places: the copy in the last name goes.
  assert.equal(repaired(withSubscriber({ lastName: 'Doe Jr', suffix: 'jr' })).subscriber.lastName, 'Doe');
});

test('names longer than their 270 element are cut to its length (characters, not UTF-16 units)', () => {
  const r = repaired(
    withSubscriber({
      firstName: 'A'.repeat(40),
      lastName: `${'B'.repeat(59)} C`,
      middleName: '𝒜'.repeat(30),
    }),
  );
  assert.equal(r.subscriber.firstName, 'A'.repeat(35));
  // Cut at 60 would end on a space: the space goes too.
  assert.equal(r.subscriber.lastName, 'B'.repeat(59));
  assert.equal([...(r.subscriber.middleName as string)].length, 25);
  assert.deepEqual(r.codes, [
    'subscriber.lastName TRIMMED_TO_MAX_LENGTH',
    'subscriber.firstName TRIMMED_TO_MAX_LENGTH',
    'subscriber.middleName TRIMMED_TO_MAX_LENGTH',
  ]);
  assert.match(r.corrections[1]!.description, /\(35 characters\)\.$/);
  assert.deepEqual(validateCheckRequest(r.body), []);
});

test('member ids lose spaces and dashes, unless the payer says its ids have them', () => {
  const r = repaired(withSubscriber({ memberId: ' SBX-100 0001 ' }));
  assert.equal(r.subscriber.memberId, 'SBX1000001');
  assert.deepEqual(r.codes, ['subscriber.memberId MEMBER_ID_SEPARATORS_REMOVED']);
  const kept = repaired(withSubscriber({ memberId: 'ABC-123' }), { keepMemberIdSeparators: true });
  assert.equal(kept.subscriber.memberId, 'ABC-123');
  assert.deepEqual(kept.corrections, []);
  // An id is never cut: one too long for NM109 is refused by validation instead.
  const long = repaired(withSubscriber({ memberId: 'A'.repeat(81) }));
  assert.equal(long.subscriber.memberId, 'A'.repeat(81));
  assert.equal(validateCheckRequest(long.body)[0]?.field, 'subscriber.memberId');
});

test('dates written YYYY-MM-DD are rewritten YYYYMMDD; other shapes are left for validation to refuse', () => {
  const r = repairCheckRequest({
    ...withSubscriber({ dateOfBirth: '1980-01-15' }),
    encounter: { dateOfService: ' 2026-03-01 ' },
  });
  const body = r.body as { subscriber: Subscriber; encounter: Subscriber };
  assert.equal(body.subscriber.dateOfBirth, '19800115');
  assert.equal(body.encounter.dateOfService, '20260301');
  assert.deepEqual(
    r.corrections.map((c) => `${c.field} ${c.code}`),
    ['subscriber.dateOfBirth DATE_REFORMATTED', 'encounter.dateOfService DATE_REFORMATTED'],
  );
  for (const dob of ['01/15/1980', '15-01-1980', '1980-1-15']) {
    assert.equal(repaired(withSubscriber({ dateOfBirth: dob })).subscriber.dateOfBirth, dob);
  }
});

test('corrections describe what was done and never carry the value', () => {
  const r = repairCheckRequest({
    ...withSubscriber({
      memberId: 'SBX 1000001',
      firstName: 'Jóse',
      lastName: "O'Doe Jr",
      dateOfBirth: '1980-01-15',
    }),
    encounter: { dateOfService: '2026-03-01' },
  });
  assert.equal(r.corrections.length, 6);
  for (const c of r.corrections) {
    assert.deepEqual(Object.keys(c), ['field', 'code', 'description']);
    assert.doesNotMatch(c.description, /SBX|J[oó]se|JOSE|O'?Doe|ODOE|1980|2026/i);
  }
});

test('the parts of the body that were not repaired are not copied, and the input is never changed', () => {
  const body = withSubscriber({ lastName: 'Dóe' });
  const before = structuredClone(body);
  const r = repairCheckRequest(body) as { body: typeof body };
  assert.deepEqual(body, before);
  assert.equal(r.body.provider, body.provider);
  assert.notEqual(r.body.subscriber, body.subscriber);
});
