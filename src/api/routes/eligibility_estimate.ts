/**
 * POST /api/eligibility/{id}/estimate: what the patient pays for the charges sent, from a COMPLETED check's
 * stored result (docs/estimates.md). No payer call and nothing written: the same charges give the same
 * answer (until the fee schedule changes, for charges priced from it).
 */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { Static } from 'typebox';
import { priceCharges, readEstimateRequest } from '../../checks/charges.ts';
import type { EligibilityCheckResponse } from '../../contract/check-response.ts';
import { EstimateRequest, EstimateResult } from '../../contract/estimate.ts';
import { estimateCharges } from '../../estimates/estimate.ts';
import { UUID_PATTERN } from '../../ids.ts';
import { findCheckResult } from '../../store/checks.ts';
import { notFound, validation } from '../errors.ts';
import { IdParams, type KeyRouteOptions, unsupportedMediaType } from '../key-gates.ts';
import { errorResponses, successResponse } from '../openapi.ts';

const NOT_FOUND = 'No eligibility check with this id.';
const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;

const problemsText = (problems: { field: string; problem: string }[]) =>
  `Invalid request: ${problems.map((p) => `${p.field} ${p.problem}`).join('; ')}.`;

/**
 * Authenticated with a read key (nothing is written), before the body is validated: the body schema
 * documents the request and the handler checks it, so `request.body` is `unknown` until then.
 */
export const estimateRoute: FastifyPluginAsync<KeyRouteOptions> = async (app, { auth, limiter }) => {
  app.post<{ Params: Static<typeof IdParams> }>(
    '/api/eligibility/:id/estimate',
    {
      schema: {
        summary: 'Estimate what the patient pays',
        description:
          "An addition to the spec. Answers at once from a COMPLETED check's stored result, with no payer call: for each charge (in order; what one pays toward the deductible and the out-of-pocket maximum is no longer remaining for the next), what the patient and the plan pay, the steps of the arithmetic and every assumption made for a missing input. A charge without `amount` is priced from the organization's fee schedule by `procedureCode`. Nothing is stored: the same charges give the same answer. The rules are in docs/estimates.md.",
        operationId: 'estimateEligibilityCheck',
        tags: ['Eligibility'],
        // Nothing is written: the read scope is enough.
        security: [{ ApiKeyAuth: ['eligibility:read'] }],
        params: IdParams,
        body: { content: { 'application/json': { schema: EstimateRequest } } },
        response: {
          200: successResponse('The estimate of each charge, and the totals.', EstimateResult),
          ...errorResponses([400, 401, 403, 404, 409, 413, 415, 429, 500, 503], {
            400: 'The body is not valid JSON or not a list of charges (a missing or unknown field, an amount with more than two decimals, a code two product types share without `serviceType`, or a procedure code the fee schedule lacks); the message names each field (ValidationException).',
            404: 'No check with this id in your organization (ResourceNotFoundException).',
            409: 'The check is not COMPLETED: still IN_PROGRESS (ask again once it finishes), FAILED, or purged after the retention period (there is no result to estimate from) (ValidationException).',
          }),
        },
      },
      validatorCompiler: () => () => true,
      onRequest: async (request, reply) => {
        const key = await auth.authenticate(request, 'eligibility:read');
        reply.headers(limiter.take(key.keyId));
        const type = request.headers['content-type'];
        if (type !== undefined && !JSON_MEDIA_TYPE.test(type)) throw unsupportedMediaType();
      },
    },
    async (request, reply) => {
      const key = request.auth!;
      const { id } = request.params;
      if (!UUID_PATTERN.test(id)) throw notFound(NOT_FOUND);
      const read = readEstimateRequest(request.body);
      if (!read.ok) throw validation(problemsText(read.problems));
      const row = await findCheckResult(app.db, key.organizationId, id);
      if (!row) throw notFound(NOT_FOUND);
      if (row.status === 'IN_PROGRESS' || row.result === null)
        throw validation('The check is still IN_PROGRESS: ask for an estimate once it has COMPLETED.', 409);
      const result = JSON.parse(row.result) as EligibilityCheckResponse;
      if (result.status !== 'COMPLETED')
        throw validation(
          `The check is ${result.status}: only a COMPLETED check has benefits to estimate from.`,
          409,
        );
      if (result.warnings?.some((w) => w.code === 'PURGED'))
        throw validation(
          "The check's details were deleted after the retention period: there is nothing left to estimate from.",
          409,
        );
      const payerId = result.tradingPartnerServiceId ?? '';
      const priced = await priceCharges(app.db, key.organizationId, payerId, read.charges, 'charges');
      if (!priced.ok) throw validation(problemsText(priced.problems));
      reply.header('cache-control', 'no-store');
      return reply.send(estimateCharges(result, priced.charges));
    },
  );
};
fp(estimateRoute, { name: 'eligibility-estimate', decorators: { fastify: ['db'] }, encapsulate: true });
