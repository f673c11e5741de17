/**
 * POST /api/eligibility/batch: accept 1 to 10,000 submit bodies at once and answer 202 with the batch id,
 * its counts and each item's check id (or the reason it was refused) in request order.
 */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { submitBatch } from '../../batches/submit.ts';
import { BatchAccepted, BatchRequest } from '../../contract/batch.ts';
import { throttled, validation } from '../errors.ts';
import {
  checkSubmitContext,
  gatedWrite,
  IdempotencyHeaders,
  type KeyRouteOptions,
  REPLAYED_HEADER,
} from '../key-gates.ts';
import { errorResponses, successResponse, WRITE_THROTTLED } from '../openapi.ts';

/** 10,000 submit bodies of a few hundred bytes each, with room to spare. */
export const BATCH_BODY_LIMIT_BYTES = 16 * 1024 * 1024;
/** What a refused batch is told to wait: batch checks finish at tens per second. */
const OVER_LIMIT_RETRY_AFTER_SECONDS = 60;

/** `limiter` is the submit limiter: a batch request takes one token, whatever its size. */
export interface BatchSubmitRouteOptions extends KeyRouteOptions {
  /** BATCH_MAX_PENDING_CHECKS. */
  maxPendingChecks: number;
}

/** Validation in the handler, after authentication, as for a single submit (eligibility_submit.ts). */
export const batchSubmitRoute: FastifyPluginAsync<BatchSubmitRouteOptions> = async (app, options) => {
  const { auth, limiter, maxPendingChecks } = options;
  app.post(
    '/api/eligibility/batch',
    {
      bodyLimit: BATCH_BODY_LIMIT_BYTES,
      schema: {
        summary: 'Submit a batch of eligibility checks',
        description:
          'Accepts 1 to 10,000 submit bodies. Each item is validated as a single submit would be: a bad item is ' +
          'reported by index with the same message and the rest are accepted, unless `atomic` is true (then any ' +
          "bad item refuses the whole batch with 400). Answers **202** with the batch id and each item's check id " +
          'in request order; every check is also readable alone. Batch checks run after interactive ones and ' +
          'retry for up to BATCH_RETRY_HOURS when their payer is down. Refused with 429 while the organization ' +
          'has too many batch checks in progress.',
        operationId: 'submitEligibilityBatch',
        tags: ['Eligibility'],
        security: [{ ApiKeyAuth: [] }],
        body: BatchRequest,
        headers: IdempotencyHeaders,
        response: {
          202: successResponse(
            "Accepted: the valid items are stored as checks and run asynchronously; each item's check id, or why it was refused, in request order.",
            BatchAccepted,
            { headers: REPLAYED_HEADER },
          ),
          ...errorResponses([400, 401, 403, 413, 415, 422, 429, 500, 503], {
            400: 'The body is not a batch (no `checks`, more than 10,000, unknown fields), or `atomic` is true and an item is invalid; a malformed Idempotency-Key (ValidationException).',
            413: 'Request body larger than 16 MB (ValidationException).',
            429: `${WRITE_THROTTLED}; or too many batch checks of the organization in progress (BATCH_MAX_PENDING_CHECKS) (ThrottlingException).`,
          }),
        },
      },
      // Validation runs in the handler, after authentication (see gatedWrite).
      ...gatedWrite(auth, limiter),
    },
    async (request, reply) => {
      const key = request.auth!;
      const result = await submitBatch(app.db, key.organizationId, request.body, {
        ...checkSubmitContext(app, request),
        maxPendingChecks,
      });
      if (!result.ok) {
        if ('conflict' in result) throw validation(result.conflict, 422);
        if ('overLimit' in result) {
          const { pending, limit } = result.overLimit;
          throw throttled(
            `Too many batch checks in progress: ${pending} of at most ${limit} for your organization. Retry after ${OVER_LIMIT_RETRY_AFTER_SECONDS}s, or send a smaller batch.`,
            OVER_LIMIT_RETRY_AFTER_SECONDS,
          );
        }
        throw validation(result.invalid);
      }
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(202).send(result.accepted);
    },
  );
};
fp(batchSubmitRoute, {
  name: 'eligibility-batch-submit',
  decorators: { fastify: ['db', 'checksNotifier'] },
  encapsulate: true,
});
