/**
 * GET /operator/scorecard/payers/{id}: one payer's scorecard over the last `hours`, in all and per connection
 * it was called through. Counts only. Behind the METRICS_TOKEN bearer (operator-token.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { payerScorecard } from '../../workers/payer-scorecard-read.ts';
import { notFound } from '../errors.ts';
import { errorResponses, jsonResponse } from '../openapi.ts';
import { operatorGate } from '../operator-token.ts';
import { type OperatorRouteOptions, ScorecardCardSchema } from './operator_scorecard.ts';

const PayerScorecard = Type.Object(
  {
    window: Type.Object({ hours: Type.Integer(), since: Type.String({ format: 'date-time' }) }),
    payer: ScorecardCardSchema,
    connections: Type.Array(ScorecardCardSchema, { description: 'The connections it was called through.' }),
  },
  { $id: 'PayerScorecard' },
);

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
      const card = await payerScorecard(db, request.params.id, hours);
      if (!card) throw notFound('No calls of this payer in the window.');
      return card;
    },
  );
};
