/**
 * The Medicare 271 fixtures (test/fixtures/x12, PROVENANCE.tsv) parse with no error-severity issue, keep
 * every EB row in benefitsInformation (Part A, other periods and procedure-specific rows included), and
 * read EB13 on the component separator each ISA declares.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parse271 } from '../../src/x12/parse271.ts';

const DIR = new URL('../fixtures/x12/', import.meta.url);
const files = readFileSync(new URL('PROVENANCE.tsv', DIR), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => line.split('\t')[0]!);

test('PROVENANCE.tsv lists the three fixtures', () => {
  assert.equal(files.length, 3);
});

for (const file of files) {
  test(`${file}: parses, every EB row kept`, () => {
    const text = readFileSync(new URL(file, DIR), 'utf8');
    const outcome = parse271(text);
    assert.equal(outcome.kind, '271');
    if (outcome.kind !== '271') return;
    const r = outcome.result;
    assert.deepEqual(
      r.issues.filter((i) => i.severity === 'error').map((i) => i.code),
      [],
    );
    const ebCount = text.split('~').filter((s) => s.trim().startsWith('EB*')).length;
    assert.equal(r.benefitsInformation.length, ebCount);
    for (const b of r.benefitsInformation) {
      const procedure = b.compositeMedicalProcedureIdentifier;
      if (procedure) {
        assert.equal(procedure.productOrServiceIdQualifierCode, 'HC');
        assert.match(procedure.procedureCode ?? '', /^[0-9A-Z]{5}$/);
      }
    }
  });
}
