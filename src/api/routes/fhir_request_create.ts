/**
 * POST /fhir/R4/CoverageEligibilityRequest: a FHIR eligibility request becomes an ordinary check, through
 * the same intake and submit as `POST /api/eligibility` (so reuse, webhooks, monitors and the portal see it
 * as any other), and answers 201 with the stored request, its id the check's.
 */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { submitCheck } from '../../checks/submit.ts';
import { FhirError } from '../../fhir/outcome.ts';
import { expressionOf, readEligibilityRequest } from '../../fhir/request.ts';
import { eligibilityRequestResource } from '../../fhir/request-resource.ts';
import { findCheck } from '../../store/checks.ts';
import { fhirErrorResponses, fhirResourceSchema, fhirResponse } from '../fhir-openapi.ts';
import { type FhirRouteOptions, sendResource } from '../fhir-reply.ts';
import { checkSubmitContext, IdempotencyHeaders, REPLAYED_HEADER } from '../key-gates.ts';

export const fhirRequestCreateRoute: FastifyPluginAsync<FhirRouteOptions> = async (
  app,
  { gate, baseUrl },
) => {
  app.post(
    '/CoverageEligibilityRequest',
    {
      schema: {
        summary: 'Submit a FHIR CoverageEligibilityRequest',
        description:
          'Creates an eligibility check from a CoverageEligibilityRequest whose patient, provider, insurer and ' +
          'coverage are contained resources (the provider and insurer may also be given inline by identifier). ' +
          'Answers **201** with the request as stored (its `id` is the check id) and `Location`; then search ' +
          '`CoverageEligibilityResponse?request=CoverageEligibilityRequest/{id}` until it has an entry. ' +
          'docs/fhir.md lists the elements read and the identifier systems.',
        operationId: 'fhirCreateCoverageEligibilityRequest',
        tags: ['FHIR'],
        security: [{ ApiKeyAuth: [] }],
        headers: IdempotencyHeaders,
        body: {
          content: { 'application/fhir+json': { schema: fhirResourceSchema('CoverageEligibilityRequest') } },
        },
        response: {
          201: fhirResponse('Created: the check runs asynchronously.', 'CoverageEligibilityRequest', {
            Location: { type: 'string', description: 'The URL of the stored request.' },
            ...REPLAYED_HEADER,
          }),
          ...fhirErrorResponses([400, 401, 403, 413, 415, 422, 429, 500, 503]),
        },
      },
      validatorCompiler: () => () => true,
      onRequest: gate('eligibility:write'),
    },
    async (request, reply) => {
      const key = request.auth!;
      const reading = readEligibilityRequest(request.body);
      if (!reading.ok) throw new FhirError(reading.status, reading.issues);
      const result = await submitCheck(
        app.db,
        key.organizationId,
        reading.body,
        checkSubmitContext(app, request),
      );
      if (!result.ok) {
        if ('conflict' in result)
          throw new FhirError(422, [{ code: 'conflict', diagnostics: result.conflict }]);
        throw new FhirError(
          422,
          result.problems.map((p) => ({
            code: 'value',
            diagnostics: `${p.field} ${p.problem}`,
            expression: expressionOf(p.field, reading.fieldOrigins),
          })),
        );
      }
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      else app.metrics?.submitted(reading.body.tradingPartnerServiceId);
      const check = await findCheck(app.db, key.organizationId, result.id);
      if (!check) throw new Error('a submitted check could not be read back');
      const location = `${baseUrl(request)}/CoverageEligibilityRequest/${result.id}`;
      return sendResource(reply.header('location', location), 201, eligibilityRequestResource(check));
    },
  );
};
fp(fhirRequestCreateRoute, {
  name: 'fhir-request-create',
  decorators: { fastify: ['db', 'checksNotifier'] },
  encapsulate: true,
});
