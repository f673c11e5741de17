/**
 * How a key-authenticated route refuses, by family (route-table.ts): the status of each refusal, and the
 * body it must carry, exactly: `{code, message}` for `/api` (src/api/errors.ts), an OperationOutcome for
 * `/fhir`. Neither may repeat a secret (PHI, a key, an organization id) or show a stack trace. A new family
 * adds its checker to `REFUSAL_BODIES`.
 */
import assert from 'node:assert/strict';
import type { CoveredRoute, Family } from './route-table.ts';

export type Refusal = 'unauthorized' | 'forbidden' | 'not-found';
const STATUS: Record<Refusal, number> = { unauthorized: 401, forbidden: 403, 'not-found': 404 };

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** The error envelope of `/api` (src/api/errors.ts). */
const API_CODES: Record<Refusal, string> = {
  unauthorized: 'UnauthorizedException',
  forbidden: 'AccessDeniedException',
  'not-found': 'ResourceNotFoundException',
};

/** FHIR answers a refusal with an OperationOutcome; its issue type (R4 IssueType) for each refusal. */
export const FHIR_ISSUE_CODES: Record<Refusal, string> = {
  unauthorized: 'login',
  forbidden: 'forbidden',
  'not-found': 'not-found',
};

/**
 * How each family's refusal body must look, beyond its status: exactly the family's error shape, and none
 * of `secrets` (PHI, keys, ids of the organization) nor a stack trace in it. A new family adds its checker.
 */
export const REFUSAL_BODIES: Record<Family, (answer: Answer, refusal: Refusal, secrets: string[]) => void> = {
  api(answer, refusal, secrets) {
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(Object.keys(answer.body ?? {}).sort(), ['code', 'message'], answer.text);
    assert.equal(answer.body.code, API_CODES[refusal], answer.text);
    assert.equal(typeof answer.body.message, 'string');
    assertNothingLeaks(answer.text, secrets);
  },
  fhir(answer, refusal, secrets) {
    assert.match(answer.headers.get('content-type') ?? '', /^application\/fhir\+json/);
    const body = answer.body;
    assert.deepEqual(Object.keys(body ?? {}).sort(), ['issue', 'resourceType'], answer.text);
    assert.equal(body.resourceType, 'OperationOutcome');
    assert.ok(Array.isArray(body.issue) && body.issue.length > 0, 'an OperationOutcome has issues');
    for (const issue of body.issue) {
      for (const key of Object.keys(issue)) {
        assert.ok(['severity', 'code', 'diagnostics', 'details'].includes(key), `issue.${key}`);
      }
      assert.equal(issue.severity, 'error');
      assert.equal(issue.code, FHIR_ISSUE_CODES[refusal]);
    }
    assertNothingLeaks(answer.text, secrets);
  },
};

/**
 * No secret (as a whole word, case ignored: a last name DOE is not the word "does") and nothing that looks
 * like a stack frame or a source file.
 */
export function assertNothingLeaks(text: string, secrets: string[]): void {
  for (const secret of secrets) {
    if (!secret) continue;
    const word = new RegExp(
      `(^|[^0-9A-Za-z])${secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^0-9A-Za-z])`,
      'i',
    );
    assert.doesNotMatch(text, word, `the answer repeats ${secret}`);
  }
  assert.doesNotMatch(text, /\bat \S+ \(|\.ts:\d+|node_modules|\n\s+at /, 'no stack trace');
}

export function expectRefusal(route: CoveredRoute, answer: Answer, refusal: Refusal, secrets: string[]) {
  assert.equal(answer.status, STATUS[refusal], `${route.method} ${route.path}: ${answer.text.slice(0, 300)}`);
  if (answer.text) REFUSAL_BODIES[route.family](answer, refusal, secrets);
}
