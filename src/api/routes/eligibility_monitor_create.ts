/**
 * POST /api/eligibility/monitors: a recurring check of one patient, every N days or before each
 * appointment. Answers 201 with the monitor; its runs are ordinary checks created by the scheduler.
 */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { Monitor, MonitorRequest } from '../../contract/monitor.ts';
import { createMonitor } from '../../monitors/monitors.ts';
import { throttled, validation } from '../errors.ts';
import {
  gatedWrite,
  IdempotencyHeaders,
  type KeyRouteOptions,
  REPLAYED_HEADER,
  submitContext,
} from '../key-gates.ts';
import { errorResponses, successResponse, WRITE_THROTTLED } from '../openapi.ts';

/** `limiter` is the submit limiter: creating a monitor is a write like a submit. */
export interface MonitorCreateRouteOptions extends KeyRouteOptions {
  /** MONITOR_MAX_PER_ORGANIZATION. */
  maxPerOrganization: number;
}

/** What a refused create is told to wait: monitors go away only when someone deletes them. */
const OVER_LIMIT_RETRY_AFTER_SECONDS = 3600;

/** Validation in the handler, after authentication, as for a submit (eligibility_submit.ts). */
export const monitorCreateRoute: FastifyPluginAsync<MonitorCreateRouteOptions> = async (app, options) => {
  const { auth, limiter, maxPerOrganization } = options;
  app.post(
    '/api/eligibility/monitors',
    {
      schema: {
        summary: 'Create a monitor (recurring checks)',
        description:
          'Checks one patient again and again: `every` N days (the first time at once), or once before each ' +
          "appointment of `dates` (from 00:00 the day before in the organization's time zone, UTC when it has none, with that date of service). The check fields " +
          'are those of a submit, repaired and validated with the same rules and messages; `encounter` takes ' +
          'only `serviceTypeCodes`, as the schedule sets the date of service. Each run is an ordinary check ' +
          '(own id, webhook, and a `coverage.changed` event when its answer differs from the last one), never a ' +
          'reuse of an earlier answer. A run missed while the service was down runs once, not once per missed ' +
          'period; each run happens once however many worker processes run.',
        operationId: 'createMonitor',
        tags: ['Monitors'],
        security: [{ ApiKeyAuth: [] }],
        body: MonitorRequest,
        headers: IdempotencyHeaders,
        response: {
          201: successResponse(
            'The monitor, active, with its first due time; a replay (same Idempotency-Key and body) answers the same monitor as it is now.',
            Monitor,
            { headers: REPLAYED_HEADER },
          ),
          ...errorResponses([400, 401, 403, 413, 415, 422, 429, 500, 503], {
            400: 'A check field is invalid (same messages as a submit), the schedule is missing, both `every` and `dates` are given, `every` is not 1 to 365, a date is not real or in the past, or `encounter.dateOfService` is given; a malformed Idempotency-Key (ValidationException).',
            429: `${WRITE_THROTTLED}; or the organization has MONITOR_MAX_PER_ORGANIZATION monitors: delete some (ThrottlingException).`,
          }),
        },
      },
      // Validation runs in the handler, after authentication (see gatedWrite).
      ...gatedWrite(auth, limiter),
    },
    async (request, reply) => {
      const key = request.auth!;
      const result = await createMonitor(app.db, key.organizationId, request.body, {
        ...submitContext(app, request),
        maxPerOrganization,
      });
      if (!result.ok) {
        if ('conflict' in result) throw validation(result.conflict, 422);
        if ('overLimit' in result) {
          throw throttled(
            `Your organization has the most monitors allowed (${result.overLimit}). Delete monitors you no longer need, then create this one.`,
            OVER_LIMIT_RETRY_AFTER_SECONDS,
          );
        }
        throw validation(result.message);
      }
      // A replay answers as the create did (201), with the monitor as it is now.
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(201).send(result.monitor);
    },
  );
};
fp(monitorCreateRoute, {
  name: 'eligibility-monitor-create',
  decorators: { fastify: ['db'] },
  encapsulate: true,
});
