/**
 * Local admin endpoint for the CLI (`POST /admin/ops/{op}`): loopback only, bearer token from the
 * data directory's lock file (readable only by the service's OS user). Hidden from the OpenAPI document.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { AdminInputError, runAdminOp } from '../../tenancy/admin-ops.ts';
import type { ServiceKeys } from '../../tenancy/master-secret.ts';
import type { SecretBox } from '../../webhooks/signing-secrets.ts';
import { notFound, unauthorized, validation } from '../errors.ts';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

export interface AdminRouteOptions {
  token: string;
  keys: ServiceKeys;
  box: SecretBox;
  allowPrivateWebhooks: boolean;
}

export function registerAdmin(app: FastifyInstance, opts: AdminRouteOptions): void {
  const expected = Buffer.from(`Bearer ${opts.token}`);
  app.post('/admin/ops/:op', { schema: { hide: true } }, async (request) => {
    if (!LOOPBACK.has(request.socket.remoteAddress ?? '')) throw notFound(`No route POST ${request.url}.`);
    const presented = Buffer.from(request.headers.authorization ?? '');
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected))
      throw unauthorized('Invalid admin token.');
    const { op } = request.params as { op: string };
    try {
      const result = await runAdminOp(
        {
          db: app.db,
          keys: opts.keys,
          box: opts.box,
          allowPrivateWebhooks: opts.allowPrivateWebhooks,
        },
        op,
        (request.body ?? {}) as Record<string, unknown>,
      );
      return { result };
    } catch (err) {
      if (err instanceof AdminInputError) throw validation(err.message);
      throw err;
    }
  });
}
