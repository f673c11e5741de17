/** POST /api/eligibility: accept a check and answer 202 `{id, status: "IN_PROGRESS"}` at once. */
import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { formatProblems } from '../../checks/request.ts';
import { isValidIdempotencyKey, submitCheck } from '../../checks/submit.ts';
import { EligibilityCheckRequest } from '../../contract/check-request.ts';
import type { ApiKeyAuthenticator } from '../auth.ts';
import { validation } from '../errors.ts';
import { errorResponses } from '../openapi.ts';
import { declarePlugin } from '../plugin-meta.ts';
import type { RateLimiter } from '../rate-limit.ts';

const SubmitResponse = Type.Object({
  id: Type.String({ description: 'Check id (UUIDv7); poll `GET /api/eligibility/{id}/status`.' }),
  status: Type.Literal('IN_PROGRESS'),
});

export interface SubmitRouteOptions {
  auth: ApiKeyAuthenticator;
  limiter: RateLimiter;
}

/**
 * Deliberately without the TypeBox type provider: the body schema documents the request, but validation runs
 * in the handler (after authentication), so `request.body` is honestly `unknown` until `submitCheck` checks it.
 */
export const submitRoute: FastifyPluginAsync<SubmitRouteOptions> = async (app, { auth, limiter }) => {
  app.post(
    '/api/eligibility',
    {
      schema: {
        summary: 'Submit an eligibility check',
        description:
          'Creates a check processed asynchronously. Answers **202 Accepted** (the work is not done yet) with the id ' +
          'to poll. Unknown fields are rejected with 400 so that typos are not silently ignored.',
        tags: ['Eligibility'],
        security: [{ ApiKeyAuth: [] }],
        body: EligibilityCheckRequest,
        headers: Type.Object({
          'idempotency-key': Type.Optional(
            Type.String({
              description:
                'Same key + same body within 24 h returns the same check; another body answers 422.',
            }),
          ),
        }),
        response: { 202: SubmitResponse, ...errorResponses(400, 401, 403, 413, 422, 429) },
      },
      // Validation runs in the handler, after authentication, so an unauthenticated caller learns nothing.
      validatorCompiler: () => () => true,
      // Authentication and the rate limit run before the body is read: a caller without a valid key, or
      // over its limit, is answered at once and its body (however large or slow) is never read.
      onRequest: async (request, reply) => {
        const key = await auth.authenticate(request, 'eligibility:write');
        reply.headers(limiter.take(key.keyId));
      },
    },
    async (request, reply) => {
      const key = request.auth!;
      const idempotencyKey = request.headers['idempotency-key'];
      if (
        idempotencyKey !== undefined &&
        (typeof idempotencyKey !== 'string' || !isValidIdempotencyKey(idempotencyKey))
      ) {
        throw validation('Idempotency-Key must be 1-255 printable ASCII characters.');
      }
      const result = await submitCheck(app.db, key.organizationId, request.body, {
        idempotencyKey,
        wake: () => app.checksNotifier.notify(),
        canonicalPayerId: (id) => app.payers?.resolvePayer(id)?.tradingPartnerServiceId,
      });
      if (!result.ok) {
        if ('conflict' in result) throw validation(result.conflict, 422);
        throw validation(formatProblems(result.problems));
      }
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      else app.metrics?.submitted(sentPayerId(request.body));
      return reply.code(202).send({ id: result.id, status: 'IN_PROGRESS' });
    },
  );
};
declarePlugin(submitRoute, { name: 'eligibility-submit', decorators: { fastify: ['db', 'checksNotifier'] } });

/** The payer id as the client sent it (the metric counts what clients ask for); `submitCheck` has validated it. */
function sentPayerId(body: unknown): string {
  const id =
    body && typeof body === 'object' && 'tradingPartnerServiceId' in body ? body.tradingPartnerServiceId : '';
  return typeof id === 'string' ? id : '';
}
