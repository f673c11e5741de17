/**
 * Local admin endpoint for the CLI (`POST /admin/ops/{op}`): loopback only, bearer token from the
 * data directory's lock file (readable only by the service's OS user). Hidden from the OpenAPI document.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, RawServerDefault } from 'fastify';
import fp from 'fastify-plugin';
import Type from 'typebox';
import { ConfigError } from '../../config.ts';
import type { DirectoryService } from '../../directory/service.ts';
import { isFeeOp, runFeeOp } from '../../fees/admin.ts';
import type { PayerDirectoryEntry } from '../../payers/directory-schema.ts';
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
  /** The shared payer directory: `payer.reload` and `payer.import` run on it. */
  directory?: DirectoryService;
}

/**
 * Registered by the composition root on the app from `buildApp`, whose `db` it reads. The body has no schema:
 * each operation reads its own arguments (src/tenancy/admin-ops.ts), so it stays `unknown` until narrowed.
 */
// The type arguments give fastify-plugin the TypeBox plugin type, which it cannot infer from the function.
export const adminRoutes = fp<
  AdminRouteOptions,
  RawServerDefault,
  TypeBoxTypeProvider,
  FastifyBaseLogger,
  FastifyPluginAsyncTypebox<AdminRouteOptions>
>(
  async (app, opts) => {
    const expected = Buffer.from(`Bearer ${opts.token}`);
    app.post(
      '/admin/ops/:op',
      // A clearinghouse payer list of 10,000 entries is a few MB of JSON.
      { bodyLimit: 16 * 1024 * 1024, schema: { hide: true, params: Type.Object({ op: Type.String() }) } },
      async (request) => {
        if (!LOOPBACK.has(request.socket.remoteAddress ?? ''))
          throw notFound(`No route POST ${request.url}.`);
        const presented = Buffer.from(request.headers.authorization ?? '');
        if (presented.length !== expected.length || !timingSafeEqual(presented, expected))
          throw unauthorized('Invalid admin token.');
        const { op } = request.params;
        try {
          const args = argumentsOf(request.body);
          if (op === 'payer.list' || op === 'payer.reload' || op === 'payer.import') {
            if (!opts.directory) throw new AdminInputError('this server has no shared payer directory');
            return { result: await directoryOp(opts.directory, op, args) };
          }
          if (isFeeOp(op)) return { result: await runFeeOp(app.db, op, args) };
          const result = await runAdminOp(
            {
              db: app.db,
              keys: opts.keys,
              box: opts.box,
              allowPrivateWebhooks: opts.allowPrivateWebhooks,
            },
            op,
            argumentsOf(request.body),
          );
          return { result };
        } catch (err) {
          if (err instanceof AdminInputError || err instanceof ConfigError) throw validation(err.message);
          throw err;
        }
      },
    );
  },
  { name: 'admin-routes', decorators: { fastify: ['db'] }, encapsulate: true },
);

/**
 * `payer.list` answers every payer of the directory as GET /api/payers lists them; `payer.reload` re-reads
 * PAYERS_FILE; `payer.import` stores a parsed list (`{connection, payers}`).
 */
export function directoryOp(
  directory: DirectoryService,
  op: 'payer.list' | 'payer.reload' | 'payer.import',
  args: { [name: string]: unknown },
) {
  if (op === 'payer.list') return directory.directory.searchPayers('');
  if (op === 'payer.reload') return directory.reload();
  const { connection, payers } = args;
  if (typeof connection !== 'string' || !Array.isArray(payers))
    throw new AdminInputError('payer.import needs a connection name and a list of payers');
  return directory.importList(connection, payers as PayerDirectoryEntry[]);
}

/** The CLI always sends a JSON object; anything else (no body, `null`, a bare value) carries no arguments. */
function argumentsOf(body: unknown): { [name: string]: unknown } {
  return body !== null && typeof body === 'object' ? { ...body } : {};
}
