/** GET /api/eligibility/monitors: a page of the organization's monitors, newest first. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import Type from 'typebox';
import { MonitorPage } from '../../contract/monitor.ts';
import { listMonitors } from '../../monitors/monitors.ts';
import { type KeyRouteOptions, readGate } from '../key-gates.ts';
import { errorResponses, successResponse } from '../openapi.ts';

const Query = Type.Object(
  {
    after: Type.Optional(
      Type.String({ maxLength: 100, description: 'Cursor: the `next` of the previous page.' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
  },
  { additionalProperties: false },
);

export const monitorListRoute: FastifyPluginAsyncTypebox<KeyRouteOptions> = async (
  app,
  { auth, limiter },
) => {
  app.get(
    '/api/eligibility/monitors',
    {
      schema: {
        summary: 'List monitors',
        description: "The organization's monitors, newest first, a page at a time (`next` → `?after=`).",
        operationId: 'listMonitors',
        tags: ['Monitors'],
        security: [{ ApiKeyAuth: [] }],
        querystring: Query,
        response: {
          200: successResponse('One page of monitors.', MonitorPage),
          ...errorResponses([400, 401, 403, 429, 500, 503], {
            400: 'A query parameter is not one of `after`, `limit`, or its value is out of range (ValidationException).',
          }),
        },
      },
      // Authentication first, so a caller without a valid key learns nothing, not even a query problem.
      onRequest: readGate(auth, limiter),
    },
    async (request, reply) => {
      const { after, limit = 25 } = request.query;
      reply.header('cache-control', 'no-store');
      return listMonitors(app.db, request.auth!.organizationId, { after, limit });
    },
  );
};
fp(monitorListRoute, {
  name: 'eligibility-monitor-list',
  decorators: { fastify: ['db'] },
  encapsulate: true,
});
