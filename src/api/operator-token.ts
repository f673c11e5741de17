/**
 * The operator routes' gate (`/operator/...`): the METRICS_TOKEN bearer, compared in constant time, as
 * `/metrics` does. Without a token configured the routes answer 404: they are not served, and nothing says
 * otherwise. Runs as an `onRequest` hook, so a refused caller learns nothing from validation either.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { notFound, unauthorized } from './errors.ts';

export function operatorGate(token: string | undefined): (request: FastifyRequest) => Promise<void> {
  const expected = token ? Buffer.from(`Bearer ${token}`) : undefined;
  return async (request) => {
    if (!expected) throw notFound(`No route ${request.method} ${request.url.split('?')[0]}.`);
    const presented = Buffer.from(request.headers.authorization ?? '');
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected))
      throw unauthorized('Invalid operator token. Send "Authorization: Bearer <METRICS_TOKEN>".');
  };
}
