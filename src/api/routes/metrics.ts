/** GET /metrics: Prometheus text format; optionally behind a bearer token (METRICS_TOKEN). */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { unauthorized } from '../errors.ts';

/** The part of AppMetrics (app.ts) this route reads: naming only that keeps it from importing the app. */
interface MetricsRegistry {
  registry: { contentType: string; metrics(): Promise<string> };
}

export interface MetricsRouteOptions {
  metrics: MetricsRegistry;
  /** METRICS_TOKEN: when set, the route requires `Authorization: Bearer <token>`. */
  token?: string;
}

export const metricsRoute: FastifyPluginAsync<MetricsRouteOptions> = async (app, { metrics, token }) => {
  const expected = token ? Buffer.from(`Bearer ${token}`) : undefined;
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (expected) {
      const presented = Buffer.from(request.headers.authorization ?? '');
      if (presented.length !== expected.length || !timingSafeEqual(presented, expected))
        throw unauthorized('Invalid metrics token.');
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
};
