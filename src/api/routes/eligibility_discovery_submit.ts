/**
 * POST /api/eligibility/discovery: find a patient's coverage from name and date of birth (docs/discovery.md).
 * Answers 202 `{id, status: "IN_PROGRESS"}` at once; each candidate payer is asked by an ordinary check.
 */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { DiscoveryAccepted, DiscoveryRequest } from '../../contract/discovery.ts';
import { submitDiscovery } from '../../discovery/submit.ts';
import { createPayerDirectory } from '../../payers/directory.ts';
import { throttled, validation } from '../errors.ts';
import { gatedWrite, type KeyRouteOptions } from '../key-gates.ts';
import { errorResponses, successResponse, WRITE_THROTTLED } from '../openapi.ts';

export interface DiscoverySubmitRouteOptions extends KeyRouteOptions {
  /** DISCOVERY_MAX_INQUIRIES_PER_DAY. */
  maxInquiriesPerDay: number;
}

/** Seconds to the next UTC midnight, when the daily cap starts again. */
function secondsToNextUtcDay(now = new Date()): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

/** Validation in the handler, after authentication, as for a single submit (eligibility_submit.ts). */
export const discoverySubmitRoute: FastifyPluginAsync<DiscoverySubmitRouteOptions> = async (app, options) => {
  const { auth, limiter, maxInquiriesPerDay } = options;
  app.post(
    '/api/eligibility/discovery',
    {
      schema: {
        summary: 'Find coverage (insurance discovery)',
        description:
          "Asks payers whether they cover a patient known by name and date of birth, without a member id (a 270 demographic search). The payers asked: `payers` if given, else the organization's discovery list (portal, Organization), else every directory payer that takes demographic searches; at most 25. Each payer is asked by an ordinary check (same repairs, limits and retries); the payers that find the patient are completed checks with a verdict and a portal page. Answers **202** with the discovery id to poll. Names and dates are repaired as a single submit's are. Refused with 429 when the organization's payers asked today (UTC) would pass DISCOVERY_MAX_INQUIRIES_PER_DAY.",
        operationId: 'submitEligibilityDiscovery',
        tags: ['Eligibility'],
        security: [{ ApiKeyAuth: [] }],
        body: DiscoveryRequest,
        response: {
          202: successResponse(
            'Accepted: one inquiry per payer is queued; poll `GET /api/eligibility/discovery/{id}`.',
            DiscoveryAccepted,
          ),
          ...errorResponses([400, 401, 403, 413, 415, 429, 500, 503], {
            400: 'The body is not a valid discovery request (a field missing or malformed, an unknown field, a payer not in the directory or not taking demographic searches, more than 25 payers), or no payer takes demographic searches (ValidationException).',
            429: `${WRITE_THROTTLED}; or the organization's discoveries asked DISCOVERY_MAX_INQUIRIES_PER_DAY payers today (UTC) (ThrottlingException).`,
          }),
        },
      },
      // Validation runs in the handler, after authentication (see gatedWrite).
      ...gatedWrite(auth, limiter),
    },
    async (request, reply) => {
      const key = request.auth!;
      const result = await submitDiscovery(app.db, key.organizationId, request.body, {
        payers: app.payers ?? createPayerDirectory([]),
        maxInquiriesPerDay,
        wake: () => app.checksNotifier.notify(),
      });
      if (!result.ok) {
        if ('overCap' in result) {
          const { askedToday, asking, limit } = result.overCap;
          const retryAfter = secondsToNextUtcDay();
          throw throttled(
            `Too many discovery inquiries today: ${askedToday} of at most ${limit} payers asked (UTC day), and this discovery would ask ${asking}. Retry after ${retryAfter}s, or name fewer payers.`,
            retryAfter,
          );
        }
        throw validation(result.invalid);
      }
      return reply.code(202).send(result.accepted);
    },
  );
};
fp(discoverySubmitRoute, {
  name: 'eligibility-discovery-submit',
  decorators: { fastify: ['db', 'checksNotifier'] },
  encapsulate: true,
});
