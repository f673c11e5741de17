/** docs/warnings.md (where the Warning schema points) lists every warning code a client can see, and no other. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { REQUEST_CORRECTED_WARNING_CODE } from '../../src/checks/request-repair.ts';
import { TEST_EVENT_WARNING_CODE } from '../../src/webhooks/deliveries.ts';
import { INQUIRY_REFUSED_WARNING_CODE } from '../../src/workers/inquiries.ts';
import { CLIENT_WARNING_CODES } from '../../src/x12/issues.ts';

/** The interpreter's codes, read from its BENEFIT_WARNING_CODES list (src/benefits keeps it unexported). */
function benefitWarningCodes(): string[] {
  const source = readFileSync(new URL('../../src/benefits/warnings.ts', import.meta.url), 'utf8');
  const list = /BENEFIT_WARNING_CODES = \[([^\]]*)\]/.exec(source)?.[1] ?? '';
  return [...list.matchAll(/'([A-Z0-9_]+)'/g)].map((m) => m[1]!);
}

test('docs/warnings.md has one row per X12 client warning, benefit warning and service warning code', () => {
  const benefitCodes = benefitWarningCodes();
  assert.ok(benefitCodes.length > 0);
  const doc = readFileSync(new URL('../../docs/warnings.md', import.meta.url), 'utf8');
  const rows = [...doc.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
  assert.equal(new Set(rows).size, rows.length, 'a code is listed twice');
  const serviceCodes = [
    REQUEST_CORRECTED_WARNING_CODE,
    TEST_EVENT_WARNING_CODE,
    INQUIRY_REFUSED_WARNING_CODE,
  ];
  assert.deepEqual(rows.sort(), [...CLIENT_WARNING_CODES, ...benefitCodes, ...serviceCodes].sort());
});
