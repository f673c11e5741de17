/**
 * GET /fhir/R4/CoverageEligibilityResponse?request=CoverageEligibilityRequest/{id}: a searchset Bundle,
 * empty while the check is in progress and with its one response once it is finished. Without `request`,
 * the organization's newest finished checks (`_count` of the newest checks, those finished).
 */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import Type from 'typebox';
import { searchset } from '../../fhir/capability.ts';
import { FhirError } from '../../fhir/outcome.ts';
import { UUID_PATTERN } from '../../ids.ts';
import { findCheck, selectCheckDetailPage } from '../../store/checks.ts';
import { responseOfCheck } from '../fhir-checks.ts';
import { fhirErrorResponses, fhirResponse } from '../fhir-openapi.ts';
import { type FhirRouteOptions, sendResource } from '../fhir-reply.ts';

const MAX_COUNT = 50;
const DEFAULT_COUNT = 10;

const Query = Type.Object({
  request: Type.Optional(
    Type.String({
      maxLength: 300,
      description: '`CoverageEligibilityRequest/{id}` (or its absolute URL): the response to that request.',
    }),
  ),
  _count: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_COUNT,
      description: `Without \`request\`: how many of the newest checks (default ${DEFAULT_COUNT}).`,
    }),
  ),
});

const invalid = (diagnostics: string, expression: string) =>
  new FhirError(400, [{ code: 'invalid', diagnostics, expression }]);

/** The check id a `request` parameter names; undefined when it names no request of this server's form. */
function requestedId(value: string): string | undefined {
  const m = /(?:^|\/)CoverageEligibilityRequest\/([^/?#]+)$/.exec(value) ?? /^([^/?#]+)$/.exec(value);
  return m?.[1];
}

function countOf(value: unknown): number {
  if (value === undefined) return DEFAULT_COUNT;
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= 1 && n <= MAX_COUNT))
    throw invalid(`_count must be a whole number from 1 to ${MAX_COUNT}.`, '_count');
  return n;
}

export const fhirResponseSearchRoute: FastifyPluginAsync<FhirRouteOptions> = async (
  app,
  { gate, baseUrl },
) => {
  app.get(
    '/CoverageEligibilityResponse',
    {
      schema: {
        summary: 'Search FHIR CoverageEligibilityResponses',
        description:
          'With `request=CoverageEligibilityRequest/{id}`: a searchset Bundle, empty while the check is in ' +
          'progress (or when no such request is yours), with one entry once it is finished. Poll it about once a ' +
          'second. Without `request`: the newest finished checks of your organization.',
        operationId: 'fhirSearchCoverageEligibilityResponse',
        tags: ['FHIR'],
        security: [{ ApiKeyAuth: [] }],
        querystring: Query,
        response: {
          200: fhirResponse('A searchset Bundle.', 'Bundle'),
          ...fhirErrorResponses([400, 401, 403, 429, 500, 503]),
        },
      },
      // Validated in the handler, after the key: a caller without one learns nothing about the parameters.
      validatorCompiler: () => () => true,
      onRequest: gate('eligibility:read'),
    },
    async (request, reply) => {
      const organizationId = request.auth!.organizationId;
      const query = (request.query ?? {}) as Record<string, unknown>;
      const base = baseUrl(request);
      const selfUrl = `${base}/CoverageEligibilityResponse${request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : ''}`;
      if (query.request !== undefined) {
        if (typeof query.request !== 'string' || query.request.length > 300) {
          throw invalid('request must be one reference, CoverageEligibilityRequest/{id}.', 'request');
        }
        const id = requestedId(query.request);
        const check = id && UUID_PATTERN.test(id) ? await findCheck(app.db, organizationId, id) : undefined;
        const response = check && responseOfCheck(check);
        return sendResource(reply, 200, searchset(response ? [response] : [], { baseUrl: base, selfUrl }));
      }
      const checks = await selectCheckDetailPage(app.db, organizationId, { limit: countOf(query._count) });
      const responses = checks.flatMap((check) => responseOfCheck(check) ?? []);
      return sendResource(reply, 200, searchset(responses, { baseUrl: base, selfUrl }));
    },
  );
};
fp(fhirResponseSearchRoute, {
  name: 'fhir-response-search',
  decorators: { fastify: ['db'] },
  encapsulate: true,
});
