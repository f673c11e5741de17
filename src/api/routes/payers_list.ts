/**
 * GET /api/payers: the payers this service can check, so a client can pick a `tradingPartnerServiceId`.
 * Ids, names, aliases and connector types only: gateway URLs and credentials are the operator's business
 * and never leave the process (the response schema lists the four fields, so nothing else is serialized).
 */
import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import type { PayerDirectory } from '../../payers/directory.ts';
import { validation } from '../errors.ts';
import type { KeyRouteOptions } from '../key-gates.ts';
import { errorResponses, successResponse } from '../openapi.ts';

const MAX_QUERY = 100;
const MAX_LIMIT = 1000;

const ListedPayerSchema = Type.Object(
  {
    id: Type.String({ description: 'The `tradingPartnerServiceId` to submit checks with.' }),
    name: Type.String(),
    aliases: Type.Array(Type.String(), {
      description: 'Other ids accepted for this payer; checks are stored and answered under `id`.',
    }),
    connectorType: Type.String({
      description: '`sandbox`, `caqh-core-soap`, `caqh-core-mime` or `x12-json`.',
    }),
  },
  { $id: 'ListedPayer' },
);

export const PayerListResponse = Type.Object({ payers: Type.Array(ListedPayerSchema) }, { $id: 'PayerList' });

export interface PayersListRouteOptions extends KeyRouteOptions {
  /** The directory the answer ranks (its index is built on the first query). */
  payers: Pick<PayerDirectory, 'searchPayers'>;
}

/**
 * Without the TypeBox type provider on purpose: the query is validated in the handler, after authentication,
 * so `request.query` stays `unknown` until `queryFields` and the checks below narrow it.
 */
export const payersListRoute: FastifyPluginAsync<PayersListRouteOptions> = async (
  app,
  { auth, limiter, payers },
) => {
  app.get(
    '/api/payers',
    {
      schema: {
        summary: 'List payers',
        description:
          'The payer directory: the built-in sandbox (when enabled) and the payers the operator configured. ' +
          'Without `q`, every payer in directory order. With `q`, the payers it matches, best first: ' +
          'an exact id or alias first, then by how much of the query a payer’s name, aliases, ids and states ' +
          'match. Case, punctuation, word order and small typos do not matter; common abbreviations ' +
          '(BCBS, UHC, BC, BS, Medi-Cal) and US state names or codes are understood, so `bcbs tx` and ' +
          '`blue cross texas` both find Blue Cross Blue Shield of Texas first. A `q` with no letter or digit ' +
          'counts as none. `limit` caps the number of payers returned (default: all).',
        operationId: 'listPayers',
        tags: ['Payers'],
        security: [{ ApiKeyAuth: [] }],
        querystring: Type.Object({
          q: Type.Optional(Type.String({ maxLength: MAX_QUERY, description: 'What to search for.' })),
          limit: Type.Optional(
            Type.Integer({ minimum: 1, maximum: MAX_LIMIT, description: 'At most this many payers.' }),
          ),
        }),
        response: {
          200: successResponse('The payers: in directory order, or best first for a `q`.', PayerListResponse),
          ...errorResponses([400, 401, 403, 429, 500, 503], {
            400:
              'An unknown query parameter, `q` longer than 100 characters, or `limit` not a whole number ' +
              'from 1 to 1000 (ValidationException).',
          }),
        },
      },
      // Validation runs in the handler, after authentication, so an unauthenticated caller learns nothing.
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      const key = await auth.authenticate(request, 'eligibility:read');
      reply.headers(limiter.take(key.keyId));
      const { q, limit, ...rest } = queryFields(request.query);
      const unknown = Object.keys(rest);
      if (unknown.length) throw validation(`Unknown query parameter: ${unknown.map(safeName).join(', ')}.`);
      if (q !== undefined && (typeof q !== 'string' || q.length > MAX_QUERY)) {
        throw validation(`q must be one string of at most ${MAX_QUERY} characters.`);
      }
      if (
        limit !== undefined &&
        (typeof limit !== 'string' || !/^[1-9]\d{0,3}$/.test(limit) || +limit > MAX_LIMIT)
      ) {
        throw validation(`limit must be one whole number from 1 to ${MAX_LIMIT}.`);
      }
      return { payers: payers.searchPayers(q ?? '', limit === undefined ? undefined : Number(limit)) };
    },
  );
};

/** Fastify's query parser always yields an object; anything else would be a bug, read as no parameters. */
function queryFields(query: unknown): { [name: string]: unknown } {
  return query !== null && typeof query === 'object' ? { ...query } : {};
}

/** A parameter name is the client's own text: shown only when it is a plain identifier. */
function safeName(name: string): string {
  return /^[A-Za-z0-9_.-]{1,40}$/.test(name) ? name : '(unnamed)';
}
