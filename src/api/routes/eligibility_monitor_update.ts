/** PATCH /api/eligibility/monitors/{id}: pause a monitor or resume it (`{"status": "paused" | "active"}`). */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { Static } from 'typebox';
import { Monitor, MonitorUpdate } from '../../contract/monitor.ts';
import { setMonitorStatus } from '../../monitors/monitors.ts';
import { notFound, validation } from '../errors.ts';
import { gatedWrite, IdParams, type KeyRouteOptions } from '../key-gates.ts';
import { errorResponses, successResponse, WRITE_THROTTLED } from '../openapi.ts';

/** The new status, or undefined when the body is anything but `{"status": "paused" | "active"}`. */
function statusOf(body: unknown): MonitorUpdate['status'] | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const keys = Object.keys(body);
  const status = (body as Record<string, unknown>).status;
  if (keys.length !== 1 || (status !== 'active' && status !== 'paused')) return undefined;
  return status;
}

/** Validation in the handler, after authentication (see gatedWrite), so its body is `unknown` until read. */
export const monitorUpdateRoute: FastifyPluginAsync<KeyRouteOptions> = async (app, { auth, limiter }) => {
  app.patch<{ Params: Static<typeof IdParams> }>(
    '/api/eligibility/monitors/:id',
    {
      schema: {
        summary: 'Pause or resume a monitor',
        description:
          'A paused monitor creates no checks. Resumed after its due time, it runs once at once (not once per ' +
          'missed period); appointments already past are skipped. A completed monitor cannot be resumed: ' +
          'create a new one for new dates.',
        operationId: 'updateMonitor',
        tags: ['Monitors'],
        security: [{ ApiKeyAuth: [] }],
        params: IdParams,
        body: MonitorUpdate,
        response: {
          200: successResponse('The monitor as it now is.', Monitor),
          ...errorResponses([400, 401, 403, 404, 415, 429, 500, 503], {
            429: `${WRITE_THROTTLED} (ThrottlingException).`,
            400: 'The body is not `{"status": "paused"}` or `{"status": "active"}`, or the monitor is completed (ValidationException).',
            404: 'No monitor with this id in your organization (ResourceNotFoundException).',
          }),
        },
      },
      ...gatedWrite(auth, limiter),
    },
    async (request) => {
      const status = statusOf(request.body);
      if (!status) throw validation('Invalid request: send {"status": "paused"} or {"status": "active"}.');
      const result = await setMonitorStatus(app.db, request.auth!.organizationId, request.params.id, status);
      if (result.ok) return result.monitor;
      if ('completed' in result) {
        throw validation(
          'This monitor is completed: its last appointment has been checked. Create a new monitor for new dates.',
        );
      }
      throw notFound('No monitor with this id.');
    },
  );
};
fp(monitorUpdateRoute, {
  name: 'eligibility-monitor-update',
  decorators: { fastify: ['db'] },
  encapsulate: true,
});
