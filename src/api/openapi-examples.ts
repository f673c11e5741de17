/**
 * Examples of the OpenAPI document: one request per sandbox scenario and the sandbox's real answer to it.
 * The answers are recorded by `npm run docs:examples` (scripts/openapi-examples.ts) into
 * openapi-examples.json, and test/api/openapi.examples.test.ts asks the sandbox again and fails when an
 * answer differs from the recorded one, so an example cannot drift from what the service says.
 */
import { readFileSync } from 'node:fs';
import { projectPath } from '../paths.ts';
import { findMember } from '../payers/sandbox/members.ts';

/** A clinic's NPI with a valid check digit (the sandbox accepts any valid NPI). */
const EXAMPLE_PROVIDER = { organizationName: 'Demo Clinic', npi: '1234567893' };

function memberRequest(memberId: string, tradingPartnerServiceId = 'SANDBOX') {
  const m = findMember(memberId);
  if (!m) throw new Error(`no sandbox member ${memberId}`);
  return {
    tradingPartnerServiceId,
    provider: EXAMPLE_PROVIDER,
    subscriber: {
      memberId: m.memberId,
      firstName: m.firstName,
      lastName: m.lastName,
      dateOfBirth: m.dateOfBirth,
    },
    // A fixed date of service inside the sandbox plans' year: the answer does not depend on today's date.
    encounter: { serviceTypeCodes: ['30'], dateOfService: '20260315' },
  };
}

/** The scenarios, by example name: what is submitted. */
export const EXAMPLE_SCENARIOS = {
  ppoActive: { summary: 'COMPLETED: an active PPO plan (SBX1000001)', request: memberRequest('SBX1000001') },
  hmoNotCovered: {
    summary: 'COMPLETED: an HMO with a Not Covered service (SBX1000002)',
    request: memberRequest('SBX1000002'),
  },
  inactivePlan: { summary: 'COMPLETED: an inactive plan (SBX1000003)', request: memberRequest('SBX1000003') },
  aaaRejection: {
    summary: 'FAILED: the payer rejects with AAA 67, patient not found (SBX1000067)',
    request: memberRequest('SBX1000067'),
  },
  payerNotSupported: {
    summary: 'FAILED: SH01, payer not supported (an unknown tradingPartnerServiceId)',
    request: memberRequest('SBX1000001', 'NO-SUCH-PAYER'),
  },
} as const;

export type ExampleName = keyof typeof EXAMPLE_SCENARIOS;

/** What openapi-examples.json holds for each scenario: the 202 of the submit and the finished check. */
export interface RecordedExample {
  accepted: unknown;
  result: unknown;
}

export const EXAMPLES_FILE = projectPath('src', 'api', 'openapi-examples.json');

/** The recorded answers; a scenario not recorded yet (a new one, before `npm run docs:examples`) is absent. */
export function recordedExamples(): Partial<Record<ExampleName, RecordedExample>> {
  return JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8'));
}

let cached: ReturnType<typeof buildExamples> | undefined;

/** OpenAPI `examples` maps (name → summary and value) of the submit body, its 202 and the status answer. */
export function openApiExamples(): ReturnType<typeof buildExamples> {
  // Read once per process: every app built (tests build many) describes the same recorded answers.
  cached ??= buildExamples();
  return cached;
}

type Examples = Record<string, { summary: string; value: unknown }>;

function buildExamples(): { requests: Examples; accepted?: Examples; results: Examples } {
  const recorded = recordedExamples();
  const names = Object.keys(EXAMPLE_SCENARIOS) as ExampleName[];
  const requests: Examples = {};
  const results: Examples = {};
  for (const name of names) {
    const { summary, request } = EXAMPLE_SCENARIOS[name];
    requests[name] = { summary, value: request };
    const answer = recorded[name];
    if (answer) results[name] = { summary, value: answer.result };
  }
  const first = recorded[names[0]!]?.accepted as { id: string; status: string } | undefined;
  if (!first) return { requests, results };
  return {
    requests,
    accepted: { accepted: { summary: 'The check is stored and runs', value: first } },
    results: {
      inProgress: {
        summary: 'IN_PROGRESS: not finished yet (the answer carries Retry-After)',
        value: { id: first.id, status: 'IN_PROGRESS' },
      },
      ...results,
    },
  };
}
