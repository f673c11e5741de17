/**
 * The CapabilityStatement of `GET /fhir/R4/metadata`: what the FHIR face serves, and how to authenticate.
 * It says what src/api/routes/fhir_*.ts serve; test/api/fhir_metadata.happy.test.ts holds the two together.
 */
import type { Bundle, CapabilityStatement, Resource } from '@medplum/fhirtypes';

export const FHIR_VERSION = '4.0.1';
export const FHIR_MEDIA_TYPE = 'application/fhir+json';

export const SECURITY_NOTE =
  'Send an API key of the service (made in the portal, Settings > API keys) in the Authorization header, as ' +
  '"Key <API key>" or, as SMART clients send tokens, "Bearer <API key>". Submitting needs the ' +
  "eligibility:write scope, reading and searching eligibility:read. A key sees only its organization's " +
  "checks: another organization's id answers 404, as an unknown one does. This is not OAuth: there is no " +
  'token endpoint.';

export function capabilityStatement(options: { baseUrl: string; version: string }): CapabilityStatement {
  return {
    resourceType: 'CapabilityStatement',
    status: 'active',
    date: '2026-11-28',
    publisher: 'The eligibility-service contributors',
    kind: 'instance',
    software: { name: 'eligibility-service', version: options.version },
    implementation: {
      description: 'Insurance eligibility checks (X12 270/271) as CoverageEligibilityRequest and Response',
      url: options.baseUrl,
    },
    fhirVersion: FHIR_VERSION,
    format: [FHIR_MEDIA_TYPE, 'json'],
    rest: [
      {
        mode: 'server',
        documentation:
          'Submit a CoverageEligibilityRequest; search CoverageEligibilityResponse by request until it is there.',
        security: { cors: false, description: SECURITY_NOTE },
        resource: [
          {
            type: 'CoverageEligibilityRequest',
            interaction: [{ code: 'create' }, { code: 'read' }],
            versioning: 'no-version',
            readHistory: false,
            updateCreate: false,
          },
          {
            type: 'CoverageEligibilityResponse',
            interaction: [{ code: 'read' }, { code: 'search-type' }],
            versioning: 'no-version',
            searchParam: [
              {
                name: 'request',
                type: 'reference',
                documentation:
                  'CoverageEligibilityRequest/{id}: the answer to that request, once its check is finished.',
              },
              {
                name: '_count',
                type: 'number',
                documentation: 'Without `request`: how many of the newest answers (1 to 50, default 10).',
              },
            ],
          },
        ],
      },
    ],
  };
}

/** A searchset Bundle of `resources`, with the absolute URL of each entry. */
export function searchset(
  resources: readonly Resource[],
  options: { baseUrl: string; selfUrl: string },
): Bundle {
  return {
    resourceType: 'Bundle',
    type: 'searchset',
    total: resources.length,
    link: [{ relation: 'self', url: options.selfUrl }],
    entry: resources.map((resource) => ({
      fullUrl: `${options.baseUrl}/${resource.resourceType}/${resource.id}`,
      resource,
      search: { mode: 'match' },
    })),
  };
}
