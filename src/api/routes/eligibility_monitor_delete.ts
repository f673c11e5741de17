/** DELETE /api/eligibility/monitors/{id}: stop and forget a monitor (204); the checks it created stay. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import { removeMonitor } from '../../monitors/monitors.ts';
import { notFound } from '../errors.ts';
import { IdParams, type KeyRouteOptions, writeGate } from '../key-gates.ts';
import { errorResponses, WRITE_THROTTLED } from '../openapi.ts';

export const monitorDeleteRoute: FastifyPluginAsyncTypebox<KeyRouteOptions> = async (
  app,
  { auth, limiter },
) => {
  app.delete(
    '/api/eligibility/monitors/:id',
    {
      schema: {
        summary: 'Delete a monitor',
        description:
          'Deletes the monitor and the patient details it holds; it creates no more checks. The checks it ' +
          'created stay readable (and are purged with the other checks after RETENTION_DAYS).',
        operationId: 'deleteMonitor',
        tags: ['Monitors'],
        security: [{ ApiKeyAuth: [] }],
        params: IdParams,
        response: {
          204: { description: 'Deleted.', type: 'null' },
          ...errorResponses([401, 403, 404, 429, 500, 503], {
            429: `${WRITE_THROTTLED} (ThrottlingException).`,
            404: 'No monitor with this id in your organization (ResourceNotFoundException).',
          }),
        },
      },
      onRequest: writeGate(auth, limiter),
    },
    async (request, reply) => {
      if (!(await removeMonitor(app.db, request.auth!.organizationId, request.params.id))) {
        throw notFound('No monitor with this id.');
      }
      return reply.code(204).send(null);
    },
  );
};
fp(monitorDeleteRoute, {
  name: 'eligibility-monitor-delete',
  decorators: { fastify: ['db'] },
  encapsulate: true,
});
