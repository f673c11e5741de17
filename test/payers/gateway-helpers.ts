/**
 * Shared by the gateway connector tests: a real 270 for a sandbox member (built as the worker builds it),
 * secret references resolved from a table, and an assertion that a failure has the right class and a
 * message free of PHI and secrets.
 */
import assert from 'node:assert/strict';
import type { ConnectorDeps } from '../../src/payers/connector-deps.ts';
import type { SecretRef } from '../../src/payers/directory-schema.ts';
import { MEMBERS } from '../../src/payers/sandbox/members.ts';
import { build270 } from '../../src/x12/build270.ts';

export const PAYER_ID = 'FAKEPAYER';
export const SENDER_ID = 'ELIGSVC';
export const TRACE = '0193A1B2C3D4E5F60718293A4B5C6D7E';
export const JANE = MEMBERS[0]!;

/** Secret values by env name; every test asserts none of them leaks into a message. */
export const SECRETS: Record<string, string> = {
  CORE_USER: 'clinic-user-7',
  CORE_PASSWORD: 'Pa55-w0rd!s3cret',
  STEDI_KEY: 'stedi-live-key-9f8e7d6c5b4a',
  OPTUM_ID: 'optum-client-4242',
  OPTUM_SECRET: 'optum-secret-Zx81Qw',
};
export const ref = (env: keyof typeof SECRETS & string): SecretRef => ({ env });

export function deps(over: Partial<ConnectorDeps> = {}): ConnectorDeps {
  return {
    secret: (r) => {
      if (!('env' in r) || SECRETS[r.env] === undefined) throw new Error('unknown secret in test');
      return SECRETS[r.env]!;
    },
    senderId: SENDER_ID,
    receiverId: PAYER_ID,
    ...over,
  };
}

export function inquiry(member = JANE, traceNumber = TRACE, payerId = PAYER_ID): string {
  return build270(
    {
      payer: { name: 'Fake Payer', id: payerId },
      provider: { npi: '1234567893', organizationName: 'Test Clinic' },
      subscriber: {
        memberId: member.memberId,
        firstName: member.firstName,
        lastName: member.lastName,
        dateOfBirth: member.dateOfBirth,
      },
      traceNumber,
    },
    {
      senderId: SENDER_ID,
      receiverId: PAYER_ID,
      interchangeControlNumber: 4242,
      now: new Date(),
      usageIndicator: 'T',
    },
  );
}

/** PHI of the test member and the X12 markers that must never appear in an error message. */
const FORBIDDEN = [
  JANE.memberId,
  JANE.firstName,
  JANE.lastName,
  JANE.dateOfBirth,
  '1980-01-15',
  'ISA*',
  'NM1*',
];

export function assertClean(message: string): void {
  for (const value of [...Object.values(SECRETS), ...FORBIDDEN]) {
    assert.ok(
      !message.includes(value),
      `message leaks ${value.length > 6 ? 'a secret or PHI' : value}: ${message}`,
    );
  }
}

/** Awaits a failure of exactly `kind` (not a subclass unless it is one) with a clean message. */
export async function failsWith(
  work: Promise<unknown>,
  kind: abstract new (...args: never[]) => Error,
  pattern: RegExp,
): Promise<Error> {
  const err = await work.then(
    () => assert.fail('expected a failure'),
    (e: unknown) => e as Error,
  );
  assert.ok(err instanceof kind, `expected ${kind.name}, got ${err.name}: ${err.message}`);
  assert.equal(err.name, kind.name, `expected exactly ${kind.name}, got ${err.name}`);
  assert.match(err.message, pattern);
  assertClean(err.message);
  return err;
}

/** Milliseconds `work` took to settle. */
export async function elapsed(work: Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work.catch(() => undefined);
  return performance.now() - started;
}

/** A 270 whose SE01 segment count is one too many (a broken envelope a gateway must notice). */
export function miscounted270(): string {
  return inquiry().replace(/SE\*(\d+)\*/, (_, n: string) => `SE*${Number(n) + 1}*`);
}
