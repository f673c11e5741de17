/** GET /fhir/R4/metadata: the CapabilityStatement, public, as FHIR clients read it before they authenticate. */
import type { FastifyPluginAsync } from 'fastify';
import { capabilityStatement } from '../../fhir/capability.ts';
import { fhirResponse } from '../fhir-openapi.ts';
import { type FhirRouteOptions, sendResource } from '../fhir-reply.ts';

export const fhirMetadataRoute: FastifyPluginAsync<FhirRouteOptions> = async (app, { baseUrl, version }) => {
  app.get(
    '/metadata',
    {
      schema: {
        summary: 'FHIR CapabilityStatement',
        description:
          'What the FHIR face serves (FHIR 4.0.1, JSON): the resources, their interactions and search parameters, ' +
          'and how to authenticate. Public: no key needed. See docs/fhir.md.',
        operationId: 'fhirCapabilities',
        tags: ['FHIR'],
        response: { 200: fhirResponse('The CapabilityStatement.', 'CapabilityStatement') },
      },
    },
    async (request, reply) =>
      sendResource(reply, 200, capabilityStatement({ baseUrl: baseUrl(request), version })),
  );
};
