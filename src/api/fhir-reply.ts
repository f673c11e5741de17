/** What the FHIR routes share: their options (given by src/api/fhir.ts) and how a resource is sent. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { FHIR_MEDIA_TYPE } from '../fhir/capability.ts';
import type { Scope } from '../tenancy/api-keys.ts';

const CONTENT_TYPE = `${FHIR_MEDIA_TYPE}; charset=utf-8`;

/** What every FHIR route is given. */
export interface FhirRouteOptions {
  gate(scope: Scope): (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  baseUrl(request: FastifyRequest): string;
  version: string;
}

/** Sends `resource` as FHIR JSON (serialized here: the documented schemas only describe it). */
export function sendResource(reply: FastifyReply, status: number, resource: object) {
  return reply.code(status).header('content-type', CONTENT_TYPE).send(JSON.stringify(resource));
}
