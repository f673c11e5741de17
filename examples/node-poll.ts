/**
 * Submit an eligibility check with the TypeScript client and wait for its result, polling as the service
 * asks (Retry-After, with backoff), then print a summary. Node 20+.
 *
 *   ELIG_API_KEY=elig_test_... npx tsx examples/node-poll.ts        # the service on http://127.0.0.1:8080
 *   ELIG_URL=https://eligibility.example.com ELIG_API_KEY=... npx tsx examples/node-poll.ts
 *
 * In your own project, install the client (packages/client, published as @eligibility/client) and import
 * from '@eligibility/client' instead of the repository path below.
 */
import {
  EligibilityApiError,
  type EligibilityCheckRequest,
  EligibilityClient,
  WaitTimeoutError,
} from '../packages/client/src/index.ts';

const apiKey = process.env.ELIG_API_KEY;
if (!apiKey) {
  console.error('Set ELIG_API_KEY to an API key (printed at the first start, or: npx elig key create).');
  process.exit(2);
}
const client = new EligibilityClient({ baseUrl: process.env.ELIG_URL ?? 'http://127.0.0.1:8080', apiKey });

// A sandbox member (docs/sandbox.md): an active PPO with all seven service types.
const request: EligibilityCheckRequest = {
  tradingPartnerServiceId: 'SANDBOX',
  provider: { organizationName: 'Demo Clinic', npi: '1234567893' },
  subscriber: { memberId: 'SBX1000001', firstName: 'JANE', lastName: 'DOE', dateOfBirth: '19800115' },
};

// Ctrl-C stops waiting; the check itself carries on (read it later with getCheck).
const stop = new AbortController();
process.once('SIGINT', () => stop.abort());

try {
  // The idempotency key makes a retry of this submit (after a timeout, say) answer the same check.
  const { id } = await client.submitCheck(request, { idempotencyKey: `node-example-${Date.now()}` });
  console.error(`submitted check ${id}`);
  const check = await client.waitForCheck(id, {
    timeoutMs: 10 * 60 * 1000,
    signal: stop.signal,
    onProgress: (p) => console.error(`IN_PROGRESS; asking again in ${(p.nextPollMs / 1000).toFixed(1)}s`),
  });
  // A FAILED check is an answer too: its errors say why and what to do.
  console.log(
    JSON.stringify(
      {
        id: check.id,
        status: check.status,
        verdict: check.verdict?.status,
        summary: check.verdict?.summary,
        plan: check.planInformation?.planName,
        benefits: check.benefits?.map((b) => `${b.serviceType}: ${b.coverageStatus ?? 'unknown'}`),
        errors: check.errors?.map((e) => `${e.code} ${e.description}: ${e.followupAction}`),
      },
      null,
      2,
    ),
  );
} catch (err) {
  // Typed errors: ValidationException (400), UnauthorizedException (401), ThrottlingException (429), ...
  if (err instanceof EligibilityApiError) console.error(`${err.status} ${err.code}: ${err.message}`);
  else if (err instanceof WaitTimeoutError) console.error(err.message);
  else if (stop.signal.aborted) console.error('stopped waiting');
  else throw err;
  process.exit(1);
}
