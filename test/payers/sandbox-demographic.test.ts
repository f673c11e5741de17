/**
 * The sandbox's demographic search (docs/sandbox.md, "Demographic search"): a 270 whose 2100C has no member
 * id finds the member whose first name, last name and date of birth all match; none or several is AAA 75.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createSandboxConnector } from '../../src/payers/sandbox/index.ts';
import { AMBIGUOUS_SEARCH_MESSAGE } from '../../src/payers/sandbox/respond271.ts';
import { readSegments } from '../../src/x12/segments.ts';
import { member } from '../helpers/members.ts';
import { inquiryText, loops, never } from './helpers.ts';

/** The sandbox's 271 to a search for this person (no member id), cut into loops. */
async function search(person: { firstName: string; lastName: string; dateOfBirth: string }) {
  const inquiry = inquiryText({ ...person, memberId: 'unused' }, 'TRACE0001', {
    subscriber: { firstName: person.firstName, lastName: person.lastName, dateOfBirth: person.dateOfBirth },
  });
  const sent = loops(readSegments(inquiry).segments).subscriber.find((s) => s.id === 'NM1')!;
  assert.deepEqual(sent.elements.slice(8), [], 'no NM108/NM109');
  const text = await createSandboxConnector({ latencyMs: 0 }).send(inquiry, { signal: never() });
  return loops(readSegments(text).segments).subscriber;
}

const nm1 = (loop: { id: string; elements: string[] }[]) => loop.find((s) => s.id === 'NM1')!.elements;
const aaa = (loop: { id: string; elements: string[] }[]) =>
  loop.filter((s) => s.id === 'AAA').map((s) => s.elements[3]);

describe('sandbox demographic search', () => {
  test('name and date of birth of one member: the usual answer, with the member id in 2100C', async () => {
    const jane = member('SBX1000001');
    const loop = await search({
      firstName: jane.firstName,
      lastName: jane.lastName,
      dateOfBirth: jane.dateOfBirth,
    });
    assert.deepEqual(nm1(loop).slice(8, 10), ['MI', 'SBX1000001']);
    assert.deepEqual(aaa(loop), []);
    assert.ok(
      loop.some((s) => s.id === 'EB' && s.elements[1] === '1'),
      'active coverage rows',
    );
  });

  test('the names are compared as the submit repair leaves them (case, accents, punctuation)', async () => {
    const john = member('SBX1000002');
    const loop = await search({ firstName: 'Jóhn', lastName: ' smith', dateOfBirth: john.dateOfBirth });
    assert.deepEqual(nm1(loop).slice(8, 10), ['MI', 'SBX1000002']);
  });

  test('no member with that name and date of birth: AAA 75, without a member id', async () => {
    const jane = member('SBX1000001');
    for (const miss of [
      { firstName: 'JANET', lastName: jane.lastName, dateOfBirth: jane.dateOfBirth },
      { firstName: jane.firstName, lastName: 'DOE-SMITH', dateOfBirth: jane.dateOfBirth },
      { firstName: jane.firstName, lastName: jane.lastName, dateOfBirth: '19800116' },
    ]) {
      const loop = await search(miss);
      assert.deepEqual(aaa(loop), ['75']);
      assert.equal(nm1(loop)[9], undefined);
      assert.ok(!loop.some((s) => s.id === 'MSG'));
    }
  });

  test('two members match: AAA 75 with a message that the search was ambiguous', async () => {
    const a = member('SBX1000067');
    const b = member('SBX1000077');
    assert.deepEqual([a.firstName, a.lastName, a.dateOfBirth], [b.firstName, b.lastName, b.dateOfBirth]);
    const loop = await search(a);
    assert.deepEqual(aaa(loop), ['75']);
    assert.equal(nm1(loop)[9], undefined, 'neither member id is given away');
    assert.deepEqual(
      loop.filter((s) => s.id === 'MSG').map((s) => s.elements[1]),
      [AMBIGUOUS_SEARCH_MESSAGE],
    );
  });
});
