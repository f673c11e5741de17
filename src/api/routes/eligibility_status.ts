/**
 * GET /api/eligibility/{id}/status: the check, shaped by its status (docs/contract.md "Which fields a check
 * carries").
 */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { Static } from 'typebox';
import { EligibilityCheckResponse } from '../../contract/check-response.ts';
import { UUID_PATTERN } from '../../ids.ts';
import { findCheckResult } from '../../store/checks.ts';
import { notFound } from '../errors.ts';
import { IdParams, type KeyRouteOptions } from '../key-gates.ts';
import { errorResponses, successResponse } from '../openapi.ts';
import { openApiExamples } from '../openapi-examples.ts';

/**
 * Params are typed from their schema through the route generic rather than the TypeBox type provider: the
 * provider would also type the reply from the 200 schema, but this route sends the stored JSON text as is.
 */
/** The `Retry-After` of an IN_PROGRESS answer, in seconds. */
export const POLL_AFTER_SECONDS = 1;

export const statusRoute: FastifyPluginAsync<KeyRouteOptions> = async (app, { auth, limiter }) => {
  app.get<{ Params: Static<typeof IdParams> }>(
    '/api/eligibility/:id/status',
    {
      schema: {
        summary: 'Get eligibility check status',
        description:
          'IN_PROGRESS: `id` and `status` only. COMPLETED: the full result. FAILED: `id`, `status`, `payer`, ' +
          '`subscriber`, `tradingPartnerServiceId` and `errors`, each error with its `followupAction` and ' +
          '`possibleResolutions` (the table in docs/errors.md). A finished check whose request was repaired at ' +
          'submission also carries `requestCorrections` and a `REQUEST_CORRECTED` warning. A check of another ' +
          'organization answers 404. ' +
          'An IN_PROGRESS answer carries `Retry-After` (seconds): poll no sooner than that, or use a webhook.',
        operationId: 'getEligibilityCheckStatus',
        tags: ['Eligibility'],
        security: [{ ApiKeyAuth: [] }],
        params: IdParams,
        response: {
          200: successResponse(
            'The check, shaped by its status. A FAILED check is still a 200: its `errors` say why.',
            EligibilityCheckResponse,
            {
              headers: {
                'Retry-After': {
                  type: 'integer',
                  description: 'Only while IN_PROGRESS: seconds to wait before polling again.',
                },
              },
              examples: openApiExamples().results,
            },
          ),
          ...errorResponses([400, 401, 403, 404, 429, 500, 503], {
            400: 'The URL is malformed (an undecodable percent-encoding) (ValidationException).',
            404: 'No check with this id in your organization (ResourceNotFoundException).',
          }),
        },
      },
    },
    async (request, reply) => {
      const key = await auth.authenticate(request, 'eligibility:read');
      reply.headers(limiter.take(key.keyId));
      const { id } = request.params;
      if (!UUID_PATTERN.test(id)) throw notFound('No eligibility check with this id.');
      const row = await findCheckResult(app.db, key.organizationId, id);
      if (!row) throw notFound('No eligibility check with this id.');
      reply.header('cache-control', 'no-store');
      if (row.status === 'IN_PROGRESS' || row.result === null) {
        // How soon asking again can tell something new: most checks finish within a second or two.
        reply.header('retry-after', String(POLL_AFTER_SECONDS));
        return reply.type('application/json').send(`{"id":"${id}","status":"IN_PROGRESS"}`);
      }
      // The stored body is the exact JSON the webhook sends; serve it as is.
      return reply.type('application/json').send(row.result);
    },
  );
};
fp(statusRoute, { name: 'eligibility-status', decorators: { fastify: ['db'] }, encapsulate: true });
