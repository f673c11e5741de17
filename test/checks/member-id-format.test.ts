/**
 * Medicare Beneficiary Identifiers (src/checks/member-id-format.ts), through the one intake: a payer whose
 * directory entry says `memberIdFormat: "mbi"` refuses any other id at submission, with what an MBI looks
 * like, and never quotes the id; other payers are untouched. And an AAA 72 from such a payer says what an
 * MBI is (src/checks/error-catalog.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MBI_RESOLUTIONS, withGuidance } from '../../src/checks/error-catalog.ts';
import { type PayerLookup, takeIn } from '../../src/checks/intake.ts';
import { mbiProblem } from '../../src/checks/member-id-format.ts';

describe('mbiProblem', () => {
  // CMS's published example MBI, and the same with spaces, lower-case letters and digits where letters may be.
  const valid = ['1EG4-TE5-MK73', '1EG4TE5MK73', '1eg4 te5 mk73', '9A04A00AA00', '1A23C45DE67'];
  for (const id of valid) {
    test(`well-formed: ${id}`, () => assert.equal(mbiProblem(id), undefined));
  }

  const invalid: [string, string, RegExp][] = [
    ['position 1 is 0', '0EG4TE5MK73', /character 1 must be a digit 1-9/],
    ['position 1 is a letter', 'AEG4TE5MK73', /character 1 must be a digit 1-9/],
    ['position 2 is a digit', '11G4TE5MK73', /character 2 must be a letter/],
    ['position 4 is a letter', '1EGATE5MK73', /character 4 must be a digit/],
    ['position 7 is a letter', '1EG4TEAMK73', /character 7 must be a digit/],
    ['position 10 is a letter', '1EG4TE5MKA3', /character 10 must be a digit/],
    ['too short', '1EG4TE5MK7', /has 10 characters, not 11/],
    ['too long', '1EG4TE5MK731', /has 12 characters, not 11/],
    ['punctuation', '1EG4.TE5MK7', /character 5 must be a letter/],
  ];
  for (const [label, id, message] of invalid) {
    test(`refused: ${label}`, () => {
      const problem = mbiProblem(id);
      assert.match(problem ?? '', message);
      assert.match(problem ?? '', /e\.g\. 1EG4-TE5-MK73/, 'says what an MBI looks like');
      assert.ok(!problem?.includes(id), 'never quotes the id');
    });
  }

  for (const letter of ['S', 'L', 'O', 'I', 'B', 'Z']) {
    test(`the letter ${letter} is never used, wherever a letter may stand`, () => {
      for (const at of [1, 2, 4, 5, 7, 8]) {
        const id = `1EG4TE5MK73`.split('');
        id[at] = letter;
        assert.match(
          mbiProblem(id.join('')) ?? '',
          new RegExp(`character ${at + 1} is one of the letters MBIs never use \\(S, L, O, I, B, Z\\)`),
          `${letter} at ${at + 1}`,
        );
      }
    });
  }

  for (const ssn of ['123-45-6789', '123456789', '123 45 6789', '123456789A', '123-45-6789-C1']) {
    test(`SSN-shaped (${ssn}): Medicare no longer accepts it`, () => {
      const problem = mbiProblem(ssn) ?? '';
      assert.match(problem, /looks like a Social Security number.*which Medicare no longer accepts/);
      assert.match(problem, /Medicare Beneficiary Identifier \(MBI\)/);
      assert.ok(!problem.includes('6789'));
    });
  }
});

const MEDICARE: PayerLookup = {
  resolvePayer: (id) =>
    id === 'MEDICARE-TEST'
      ? {
          tradingPartnerServiceId: 'MEDICARE-TEST',
          payerName: 'Medicare Test',
          memberIdFormat: 'mbi',
          keepMemberIdSeparators: true,
        }
      : id === 'ACME'
        ? { tradingPartnerServiceId: 'ACME' }
        : undefined,
};

const body = (tradingPartnerServiceId: string, memberId: string) => ({
  tradingPartnerServiceId,
  provider: { organizationName: 'Test Clinic', npi: '1234567893' },
  subscriber: { memberId, firstName: 'JANE', lastName: 'DOE', dateOfBirth: '19470322' },
});

describe('intake for a payer whose member ids are MBIs', () => {
  test('a well-formed MBI with dashes and lower-case letters is taken, repaired to its sent form', () => {
    const taken = takeIn(body('MEDICARE-TEST', '1eg4-te5-mk73'), { payers: MEDICARE });
    assert.ok(taken.ok, JSON.stringify(taken));
    assert.equal(taken.request.subscriber.memberId, '1EG4TE5MK73');
    assert.deepEqual(
      taken.corrections.map((c) => c.code),
      ['MEMBER_ID_SEPARATORS_REMOVED', 'MEMBER_ID_UPPERCASED'],
    );
  });

  test('an SSN is refused on subscriber.memberId, saying Medicare no longer accepts it', () => {
    const taken = takeIn(body('MEDICARE-TEST', '123-45-6789'), { payers: MEDICARE });
    assert.ok(!taken.ok);
    assert.equal(taken.problems.length, 1);
    assert.equal(taken.problems[0]!.field, 'subscriber.memberId');
    assert.match(taken.problems[0]!.problem, /Medicare no longer accepts/);
  });

  test('an id with an excluded letter is refused; the same id to another payer is fine', () => {
    const refused = takeIn(body('MEDICARE-TEST', '1EG4TE5MKO3'), { payers: MEDICARE });
    assert.ok(!refused.ok);
    assert.match(refused.problems[0]!.problem, /character 10 is one of the letters MBIs never use/);
    const other = takeIn(body('ACME', '1EG4TE5MKO3'), { payers: MEDICARE });
    assert.ok(other.ok);
    const sandboxLike = takeIn(body('ACME', 'SBX1000014'), { payers: MEDICARE });
    assert.ok(sandboxLike.ok);
  });

  test('a member id the schema already refuses is named once, by the schema', () => {
    const taken = takeIn(body('MEDICARE-TEST', 'a*b'), { payers: MEDICARE });
    assert.ok(!taken.ok);
    assert.equal(taken.problems.filter((p) => p.field === 'subscriber.memberId').length, 1);
  });
});

describe('AAA 72 guidance', () => {
  const aaa72 = { code: '72', description: 'Invalid/Missing subscriber/insured ID', field: 'AAA' };

  test('from an MBI payer: the MBI resolutions, with the follow-up action of the table', () => {
    const e = withGuidance(aaa72, { memberIdFormat: 'mbi' });
    assert.equal(e.possibleResolutions, MBI_RESOLUTIONS);
    assert.match(e.possibleResolutions ?? '', /new card|current red, white and blue Medicare card/);
    assert.equal(e.followupAction, 'Please Correct and Resubmit');
  });

  test('from any other payer, and any other code from an MBI payer: the table as before', () => {
    const plain = withGuidance(aaa72);
    assert.notEqual(plain.possibleResolutions, MBI_RESOLUTIONS);
    assert.match(plain.possibleResolutions ?? '', /member id/);
    const other = withGuidance({ ...aaa72, code: '73' }, { memberIdFormat: 'mbi' });
    assert.notEqual(other.possibleResolutions, MBI_RESOLUTIONS);
  });
});
