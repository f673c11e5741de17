/**
 * GET /operator/scorecard/payers/{id}: one payer's scorecard over the last `hours`, in all and per connection
 * it was called through. Counts only. Behind the METRICS_TOKEN bearer (operator-token.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { readScorecard } from '../../store/payer-call-stats.ts';
import { scorecardCard } from '../../workers/payer-scorecard.ts';
import { notFound } from '../errors.ts';
import { errorResponses, jsonResponse } from '../openapi.ts';
import { operatorGate } from '../operator-token.ts';
import { type OperatorRouteOptions, ScorecardCardSchema, windowStart } from './operator_scorecard.ts';

const PayerScorecard = Type.Object(
  {
    window: Type.Object({ hours: Type.Integer(), since: Type.String({ format: 'date-time' }) }),
    payer: ScorecardCardSchema,
    connections: Type.Array(ScorecardCardSchema, { description: 'The connections it was called through.' }),
  },
  { $id: 'PayerScorecard' },
);

/** A payer's connections: a failover list names a handful. */
const MAX_CONNECTIONS = 100;

export const operatorScorecardPayerRoute: FastifyPluginAsyncTypebox<OperatorRouteOptions> = async (
  app,
  { db, token },
) => {
  app.get(
    '/operator/scorecard/payers/:id',
    {
      onRequest: operatorGate(token),
      schema: {
        summary: "One payer's scorecard",
        description:
          'For operators: one payer (by its canonical id) over the last `hours`, in all and per connection. 404 when it has no calls in the window.',
        operationId: 'getPayerScorecard',
        tags: ['Operator'],
        security: [{ OperatorToken: [] }],
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 80 }) }),
        querystring: Type.Object({
          hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 720, default: 24 })),
        }),
        response: {
          200: jsonResponse("The payer's scorecard.", PayerScorecard),
          ...errorResponses([400, 401, 404, 500, 503], {
            401: 'No `Authorization: Bearer <METRICS_TOKEN>`, or another token (UnauthorizedException).',
            404: 'No calls of this payer in the window, or METRICS_TOKEN is not configured (ResourceNotFoundException).',
          }),
        },
      },
    },
    async (request) => {
      const { hours = 24 } = request.query;
      const since = windowStart(hours);
      const { id } = request.params;
      const [total] = (await readScorecard(db, { since, by: 'payer', payerId: id, limit: 1 })).lines;
      if (!total) throw notFound('No calls of this payer in the window.');
      const connections = await readScorecard(db, {
        since,
        by: 'connection',
        payerId: id,
        limit: MAX_CONNECTIONS,
      });
      return {
        window: { hours, since: since.toISOString() },
        payer: scorecardCard(total.key, total),
        connections: connections.lines.map((l) => scorecardCard(l.key, l)),
      };
    },
  );
};
