/**
 * How the FHIR operations appear in the OpenAPI document: their bodies are FHIR R4 resources, described by
 * the FHIR specification (and the CapabilityStatement at /fhir/R4/metadata), not by schemas of this
 * service; the document names each resource type and links its definition. Errors are OperationOutcomes.
 */
import { FHIR_MEDIA_TYPE } from '../fhir/capability.ts';

const STATUS_TEXT: Record<number, string> = {
  400: 'The body is not JSON or not the resource this operation takes, or a search parameter is malformed (OperationOutcome, issue `structure` or `invalid`).',
  401: 'Missing, malformed or revoked API key (OperationOutcome, issue `login`).',
  403: 'The key lacks the scope, or the organization is not enabled for eligibility checks (OperationOutcome, issue `forbidden`).',
  404: 'No such resource in your organization (OperationOutcome, issue `not-found`).',
  413: 'Request body larger than 64 KB (OperationOutcome, issue `too-costly`).',
  415: 'The body is not sent as `application/fhir+json` or `application/json` (OperationOutcome, issue `not-supported`).',
  422: 'The resource cannot be checked as sent: each issue names the element (`expression`) and what is wrong (OperationOutcome).',
  429: 'Rate limit of the key exceeded; wait `Retry-After` seconds (OperationOutcome, issue `throttled`).',
  500: 'Unexpected server error; the diagnostics carry a reference for support (OperationOutcome, issue `exception`).',
  503: 'The service cannot reach its database right now; retry after `Retry-After` seconds (OperationOutcome, issue `transient`).',
};

const RETRY_AFTER = { type: 'integer', description: 'Seconds to wait before asking again.' };

/** A FHIR R4 resource of `type`, as the document describes it: its type, and where it is defined. */
export function fhirResourceSchema(type: string) {
  return {
    type: 'object',
    description: `A FHIR R4 ${type} (https://hl7.org/fhir/R4/${type.toLowerCase()}.html); docs/fhir.md says which elements the service reads and writes.`,
    required: ['resourceType'],
    properties: { resourceType: { type: 'string', const: type } },
    additionalProperties: true,
  };
}

export function fhirResponse(description: string, type: string, headers?: Record<string, object>) {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { [FHIR_MEDIA_TYPE]: { schema: fhirResourceSchema(type) } },
  };
}

/** The OperationOutcome answers of a FHIR route: each status with why (`reasons` overrides). */
export function fhirErrorResponses(
  statuses: readonly number[],
  reasons: Partial<Record<number, string>> = {},
) {
  return Object.fromEntries(
    statuses.map((s) => {
      const description = reasons[s] ?? STATUS_TEXT[s];
      if (!description) throw new Error(`no reason for status ${s}`);
      const headers = s === 429 || s === 503 ? { 'Retry-After': RETRY_AFTER } : undefined;
      return [s, fhirResponse(description, 'OperationOutcome', headers)];
    }),
  );
}
