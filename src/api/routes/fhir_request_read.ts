/** GET /fhir/R4/CoverageEligibilityRequest/{id}: a submitted request, as stored. */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { Static } from 'typebox';
import { FhirError } from '../../fhir/outcome.ts';
import { eligibilityRequestResource } from '../../fhir/request-resource.ts';
import { UUID_PATTERN } from '../../ids.ts';
import { findCheck } from '../../store/checks.ts';
import { fhirErrorResponses, fhirResponse } from '../fhir-openapi.ts';
import { type FhirRouteOptions, sendResource } from '../fhir-reply.ts';
import { IdParams } from '../key-gates.ts';

export const NOT_FOUND = (type: string) =>
  new FhirError(404, [{ code: 'not-found', diagnostics: `No ${type} with this id in your organization.` }]);

export const fhirRequestReadRoute: FastifyPluginAsync<FhirRouteOptions> = async (app, { gate }) => {
  app.get<{ Params: Static<typeof IdParams> }>(
    '/CoverageEligibilityRequest/:id',
    {
      schema: {
        summary: 'Read a FHIR CoverageEligibilityRequest',
        description:
          'The request as stored: after the repairs of the intake, with its participants contained (docs/fhir.md).',
        operationId: 'fhirReadCoverageEligibilityRequest',
        tags: ['FHIR'],
        security: [{ ApiKeyAuth: [] }],
        params: IdParams,
        response: {
          200: fhirResponse('The stored request.', 'CoverageEligibilityRequest'),
          ...fhirErrorResponses([400, 401, 403, 404, 429, 500, 503]),
        },
      },
      onRequest: gate('eligibility:read'),
    },
    async (request, reply) => {
      const { id } = request.params;
      const check = UUID_PATTERN.test(id)
        ? await findCheck(app.db, request.auth!.organizationId, id)
        : undefined;
      if (!check) throw NOT_FOUND('CoverageEligibilityRequest');
      return sendResource(reply, 200, eligibilityRequestResource(check));
    },
  );
};
fp(fhirRequestReadRoute, { name: 'fhir-request-read', decorators: { fastify: ['db'] }, encapsulate: true });
