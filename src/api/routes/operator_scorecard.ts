/**
 * GET /operator/scorecard: the payer scorecard of the service's operators (docs/payers.md "Scorecard"):
 * per connection and per payer, most calls first, over the last `hours`. Counts only, across every
 * organization: no check id, no patient, no organization. Behind the METRICS_TOKEN bearer (operator-token.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { Db } from '../../store/db.ts';
import { scorecardOverview } from '../../workers/payer-scorecard-read.ts';
import { errorResponses, jsonResponse } from '../openapi.ts';
import { operatorGate } from '../operator-token.ts';

const Count = Type.Integer({ minimum: 0 });
const Share = Type.Number({ minimum: 0, maximum: 1 });
const Outcomes = <T extends typeof Count | typeof Share>(t: T) =>
  Type.Object({ completed: t, aaa: t, transient: t, rejected: t, error: t });
const Sources = <T extends typeof Count | typeof Share>(t: T) =>
  Type.Object({ 'payer-rows': t, 'plan-fallback': t, none: t });
const NullableMs = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]);

export const ScorecardCardSchema = Type.Object(
  {
    id: Type.String({
      description: 'The payer id (its canonical `tradingPartnerServiceId`) or connection name.',
    }),
    calls: Count,
    latencyMs: Type.Object(
      { p50: NullableMs, p95: NullableMs, mean: NullableMs },
      {
        description:
          'Of the payer calls, from fixed buckets (p50/p95 interpolated inside one); null without calls.',
      },
    ),
    outcomes: Outcomes(Count),
    outcomeShares: Outcomes(Share),
    aaaCodes: Type.Record(Type.String(), Count, { description: 'Calls answered with each AAA03 code.' }),
    sources: Sources(Count),
    sourceShares: Sources(Share),
    lastSuccessAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'The last call answered with a 271 (with or without AAA), to the hour flushed.',
    }),
  },
  {
    $id: 'ScorecardCard',
    description:
      "Calls: completed (a 271 without AAA), aaa (a 271 with AAA, by code; 42/80 included), transient (no answer), rejected (999/TA1), error (unreadable answer). Sources, of completed checks: every product service type from the payer's service-type rows (payer-rows), at least one from the plan-level 30 fallback (plan-fallback), none from any row (none).",
  },
);

export const ScorecardQuery = Type.Object({
  hours: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 720, default: 24, description: 'The window: the last N hours.' }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'Payers per page.' }),
  ),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000, default: 0 })),
});

const Window = Type.Object({ hours: Type.Integer(), since: Type.String({ format: 'date-time' }) });

const Scorecard = Type.Object(
  {
    window: Window,
    connections: Type.Array(ScorecardCardSchema, { description: 'Every connection with calls, most first.' }),
    payers: Type.Object({
      items: Type.Array(ScorecardCardSchema, { description: 'Most calls first, then by id.' }),
      total: Count,
      limit: Count,
      offset: Count,
    }),
  },
  { $id: 'Scorecard' },
);

export interface OperatorRouteOptions {
  db: Db;
  /** METRICS_TOKEN; unset: the routes answer 404. */
  token?: string;
}

export const operatorScorecardRoute: FastifyPluginAsyncTypebox<OperatorRouteOptions> = async (
  app,
  { db, token },
) => {
  app.get(
    '/operator/scorecard',
    {
      onRequest: operatorGate(token),
      schema: {
        summary: 'Payer scorecard',
        description:
          'For operators: calls, latency, outcome and benefit-source shares, last success, per connection and per payer (paginated, most calls first), over the last `hours`. Counts only, across every organization. `Authorization: Bearer <METRICS_TOKEN>`; without METRICS_TOKEN configured, 404.',
        operationId: 'getScorecard',
        tags: ['Operator'],
        security: [{ OperatorToken: [] }],
        querystring: ScorecardQuery,
        response: {
          200: jsonResponse('The scorecard of the window.', Scorecard),
          ...errorResponses([400, 401, 404, 500, 503], {
            401: 'No `Authorization: Bearer <METRICS_TOKEN>`, or another token (UnauthorizedException).',
            404: 'METRICS_TOKEN is not configured: the operator routes are not served (ResourceNotFoundException).',
          }),
        },
      },
    },
    async (request) => {
      const { hours = 24, limit = 50, offset = 0 } = request.query;
      return scorecardOverview(db, { hours, limit, offset });
    },
  );
};
