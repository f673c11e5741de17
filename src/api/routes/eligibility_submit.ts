/** POST /api/eligibility: accept a check and answer 202 `{id, status: "IN_PROGRESS"}` at once. */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { formatProblems } from '../../checks/request.ts';
import { submitCheck } from '../../checks/submit.ts';
import { EligibilityCheckRequest } from '../../contract/check-request.ts';
import { EligibilityCheckAccepted } from '../../contract/check-response.ts';
import { validation } from '../errors.ts';
import {
  checkSubmitContext,
  gatedWrite,
  IdempotencyHeaders,
  type KeyRouteOptions,
  REPLAYED_HEADER,
} from '../key-gates.ts';
import { errorResponses, successResponse, WRITE_THROTTLED } from '../openapi.ts';
import { openApiExamples } from '../openapi-examples.ts';

/**
 * Deliberately without the TypeBox type provider: the body schema documents the request, but validation runs
 * in the handler (after authentication), so `request.body` is honestly `unknown` until `submitCheck` checks it.
 */
export const submitRoute: FastifyPluginAsync<KeyRouteOptions> = async (app, { auth, limiter }) => {
  const examples = openApiExamples();
  app.post(
    '/api/eligibility',
    {
      schema: {
        summary: 'Submit an eligibility check',
        description:
          'Creates a check processed asynchronously. Answers **202 Accepted** (the work is not done yet) with the id ' +
          'to poll. Unknown fields are rejected with 400 so that typos are not silently ignored.\n\n' +
          '**Request repair.** Before it is validated and stored, the request is repaired where a payer would reject ' +
          'what a person plainly meant: names folded to the X12 basic character set (`José` → `JOSE`; apostrophes, ' +
          'periods and repeated spaces removed), a `JR`/`SR`/`II`/`III`/`IV` at the end of `lastName` moved to ' +
          '`suffix` (CAQH CORE rule 258), names cut to the 270 element lengths, spaces and dashes removed from ' +
          '`memberId` (unless the payer directory says its ids keep them), and dates written `YYYY-MM-DD` rewritten ' +
          '`YYYYMMDD`. The schema below describes the request after repair. Repairs happen at submission, so the ' +
          'stored request is the one sent to the payer; each is listed in `requestCorrections` (here and on the ' +
          'finished check, with a `REQUEST_CORRECTED` warning), naming the field and what was done, never the value. ' +
          'Ids are never cut or guessed. See docs/errors.md.',
        operationId: 'submitEligibilityCheck',
        tags: ['Eligibility'],
        security: [{ ApiKeyAuth: [] }],
        body: {
          content: {
            'application/json': { schema: EligibilityCheckRequest, examples: examples.requests },
          },
        },
        headers: IdempotencyHeaders,
        response: {
          202: successResponse(
            'Accepted: the check is stored and runs asynchronously. Poll its status, or wait for the webhook.',
            EligibilityCheckAccepted,
            { headers: REPLAYED_HEADER, examples: examples.accepted },
          ),
          ...errorResponses([400, 401, 403, 413, 415, 422, 429, 500, 503], {
            429: `${WRITE_THROTTLED} (ThrottlingException).`,
            400: 'The body is not valid JSON or does not match the schema (a missing or unknown field, a bad NPI check digit, an impossible date), or the Idempotency-Key is malformed; the message names each field (ValidationException).',
          }),
        },
      },
      // Validation runs in the handler, after authentication (see gatedWrite).
      ...gatedWrite(auth, limiter),
    },
    async (request, reply) => {
      const key = request.auth!;
      const result = await submitCheck(
        app.db,
        key.organizationId,
        request.body,
        checkSubmitContext(app, request),
      );
      if (!result.ok) {
        if ('conflict' in result) throw validation(result.conflict, 422);
        throw validation(formatProblems(result.problems));
      }
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      else app.metrics?.submitted(sentPayerId(request.body));
      const corrections = result.corrections.length ? { requestCorrections: result.corrections } : {};
      return reply.code(202).send({ id: result.id, status: 'IN_PROGRESS', ...corrections });
    },
  );
};
fp(submitRoute, {
  name: 'eligibility-submit',
  decorators: { fastify: ['db', 'checksNotifier'] },
  encapsulate: true,
});

/** The payer id as the client sent it (the metric counts what clients ask for); `submitCheck` has validated it. */
function sentPayerId(body: unknown): string {
  const id =
    body && typeof body === 'object' && 'tradingPartnerServiceId' in body ? body.tradingPartnerServiceId : '';
  return typeof id === 'string' ? id : '';
}
