/**
 * GET /api/eligibility/discovery/{id}: a discovery's status, progress (payers asked, answered) and the
 * coverages found, ranked active first. Another organization's discovery is 404.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import { Discovery } from '../../contract/discovery.ts';
import { readDiscovery } from '../../discovery/read.ts';
import { UUID_PATTERN } from '../../ids.ts';
import { notFound } from '../errors.ts';
import { IdParams, type KeyRouteOptions, readGate } from '../key-gates.ts';
import { errorResponses, successResponse } from '../openapi.ts';

export const discoveryGetRoute: FastifyPluginAsyncTypebox<KeyRouteOptions> = async (
  app,
  { auth, limiter },
) => {
  app.get(
    '/api/eligibility/discovery/:id',
    {
      schema: {
        summary: 'Get an insurance discovery',
        description:
          'Status, progress (payers asked, and of them answered) and the coverages found so far, ranked ACTIVE first; each names the completed check that found it (`GET /api/eligibility/{id}/status` has the whole result, the member id included). A discovery of another organization answers 404. While IN_PROGRESS the answer has `Retry-After: 1`.',
        operationId: 'getEligibilityDiscovery',
        tags: ['Eligibility'],
        security: [{ ApiKeyAuth: [] }],
        params: IdParams,
        response: {
          200: successResponse('The discovery.', Discovery),
          ...errorResponses([400, 401, 403, 404, 429, 500, 503], {
            404: 'No discovery with this id in your organization (ResourceNotFoundException).',
          }),
        },
      },
      onRequest: readGate(auth, limiter),
    },
    async (request, reply) => {
      const key = request.auth!;
      const { id } = request.params;
      if (!UUID_PATTERN.test(id)) throw notFound('No discovery with this id.');
      const discovery = await readDiscovery(app.db, key.organizationId, id);
      if (!discovery) throw notFound('No discovery with this id.');
      reply.header('cache-control', 'no-store');
      if (discovery.status === 'IN_PROGRESS') reply.header('retry-after', '1');
      return discovery;
    },
  );
};
fp(discoveryGetRoute, {
  name: 'eligibility-discovery-get',
  decorators: { fastify: ['db'] },
  encapsulate: true,
});
