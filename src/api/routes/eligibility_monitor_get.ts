/** GET /api/eligibility/monitors/{id}: one monitor with its latest runs. Another organization's is 404. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import { MonitorDetail } from '../../contract/monitor.ts';
import { readMonitor } from '../../monitors/monitors.ts';
import { notFound } from '../errors.ts';
import { IdParams, type KeyRouteOptions, readGate } from '../key-gates.ts';
import { errorResponses, successResponse } from '../openapi.ts';

export const monitorGetRoute: FastifyPluginAsyncTypebox<KeyRouteOptions> = async (app, { auth, limiter }) => {
  app.get(
    '/api/eligibility/monitors/:id',
    {
      schema: {
        summary: 'Get a monitor',
        description:
          "The monitor and its latest 20 runs, newest first: each run's check id, status and verdict (each " +
          'check is readable alone). A monitor of another organization answers 404.',
        operationId: 'getMonitor',
        tags: ['Monitors'],
        security: [{ ApiKeyAuth: [] }],
        params: IdParams,
        response: {
          200: successResponse('The monitor with its latest runs.', MonitorDetail),
          ...errorResponses([401, 403, 404, 429, 500, 503], {
            404: 'No monitor with this id in your organization (ResourceNotFoundException).',
          }),
        },
      },
      onRequest: readGate(auth, limiter),
    },
    async (request, reply) => {
      const monitor = await readMonitor(app.db, request.auth!.organizationId, request.params.id);
      if (!monitor) throw notFound('No monitor with this id.');
      reply.header('cache-control', 'no-store');
      return monitor;
    },
  );
};
fp(monitorGetRoute, { name: 'eligibility-monitor-get', decorators: { fastify: ['db'] }, encapsulate: true });
