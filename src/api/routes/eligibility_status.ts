/** GET /api/eligibility/{id}/status: the check, shaped by its status (spec 2.1 "Population by status"). */
import type { FastifyPluginAsync } from 'fastify';
import Type, { type Static } from 'typebox';
import { EligibilityCheckResponse } from '../../contract/check-response.ts';
import { UUID_PATTERN } from '../../ids.ts';
import { findCheckResult } from '../../store/checks.ts';
import type { ApiKeyAuthenticator } from '../auth.ts';
import { notFound } from '../errors.ts';
import { errorResponses, openApiSchema } from '../openapi.ts';
import { declarePlugin } from '../plugin-meta.ts';
import type { RateLimiter } from '../rate-limit.ts';

export interface StatusRouteOptions {
  auth: ApiKeyAuthenticator;
  limiter: RateLimiter;
}

const StatusParams = Type.Object({ id: Type.String() });

/**
 * Params are typed from their schema through the route generic rather than the TypeBox type provider: the
 * provider would also type the reply from the 200 schema, but this route sends the stored JSON text as is.
 */
export const statusRoute: FastifyPluginAsync<StatusRouteOptions> = async (app, { auth, limiter }) => {
  app.get<{ Params: Static<typeof StatusParams> }>(
    '/api/eligibility/:id/status',
    {
      schema: {
        summary: 'Get eligibility check status',
        description:
          'IN_PROGRESS: `id` and `status` only. COMPLETED: the full result. FAILED: `id`, `status`, `payer`, ' +
          '`subscriber`, `tradingPartnerServiceId` and `errors`. A check of another organization answers 404.',
        tags: ['Eligibility'],
        security: [{ ApiKeyAuth: [] }],
        params: StatusParams,
        response: {
          200: openApiSchema(EligibilityCheckResponse),
          ...errorResponses(401, 403, 404, 429, 500),
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
        return reply.type('application/json').send(`{"id":"${id}","status":"IN_PROGRESS"}`);
      }
      // The stored body is the exact JSON the webhook sends; serve it as is.
      return reply.type('application/json').send(row.result);
    },
  );
};
declarePlugin(statusRoute, { name: 'eligibility-status', decorators: { fastify: ['db'] } });
