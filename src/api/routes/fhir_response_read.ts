/** GET /fhir/R4/CoverageEligibilityResponse/{id}: the answer to a request, once its check is finished. */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { Static } from 'typebox';
import { UUID_PATTERN } from '../../ids.ts';
import { findCheck } from '../../store/checks.ts';
import { responseOfCheck } from '../fhir-checks.ts';
import { fhirErrorResponses, fhirResponse } from '../fhir-openapi.ts';
import { type FhirRouteOptions, sendResource } from '../fhir-reply.ts';
import { IdParams } from '../key-gates.ts';
import { NOT_FOUND } from './fhir_request_read.ts';

export const fhirResponseReadRoute: FastifyPluginAsync<FhirRouteOptions> = async (app, { gate }) => {
  app.get<{ Params: Static<typeof IdParams> }>(
    '/CoverageEligibilityResponse/:id',
    {
      schema: {
        summary: 'Read a FHIR CoverageEligibilityResponse',
        description:
          'The answer to the CoverageEligibilityRequest of the same id, once its check is finished (COMPLETED: ' +
          '`outcome` complete; FAILED: `outcome` error, with `error`). While the check is in progress there is no ' +
          'response yet: 404, as for an unknown id. The mapping is in docs/fhir.md.',
        operationId: 'fhirReadCoverageEligibilityResponse',
        tags: ['FHIR'],
        security: [{ ApiKeyAuth: [] }],
        params: IdParams,
        response: {
          200: fhirResponse('The response.', 'CoverageEligibilityResponse'),
          ...fhirErrorResponses([400, 401, 403, 404, 429, 500, 503], {
            404: 'No finished check with this id in your organization (OperationOutcome, issue `not-found`).',
          }),
        },
      },
      onRequest: gate('eligibility:read'),
    },
    async (request, reply) => {
      const { id } = request.params;
      const check = UUID_PATTERN.test(id)
        ? await findCheck(app.db, request.auth!.organizationId, id)
        : undefined;
      const response = check && responseOfCheck(check);
      if (!response) throw NOT_FOUND('CoverageEligibilityResponse');
      return sendResource(reply, 200, response);
    },
  );
};
fp(fhirResponseReadRoute, { name: 'fhir-response-read', decorators: { fastify: ['db'] }, encapsulate: true });
