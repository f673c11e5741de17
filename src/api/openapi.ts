/**
 * OpenAPI 3.1 description, generated from the same TypeBox schemas that validate requests.
 */
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { ErrorBody } from './errors.ts';

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid request (ValidationException)',
  401: 'Missing or invalid API key (UnauthorizedException)',
  403: 'Key lacks the scope, or the organization is not enabled (AccessDeniedException)',
  404: 'No such check in your organization (ResourceNotFoundException)',
  413: 'Request body larger than 64 KB (ValidationException)',
  422: 'Idempotency-Key reused with a different body (ValidationException)',
  429: 'Rate limit exceeded (ThrottlingException)',
  500: 'Unexpected server error (InternalFailureException)',
  503: 'Service temporarily unavailable (InternalFailureException)',
};

/** TypeBox schemas carry `$id`s; nested repeats would collide in the serializer, so routes get copies without them. */
export function openApiSchema<T>(schema: T): T {
  return JSON.parse(JSON.stringify(schema, (k, v) => (k === '$id' ? undefined : v)));
}

export function errorResponses(...statuses: number[]): Record<number, unknown> {
  return Object.fromEntries(
    statuses.map((s) => [s, { ...openApiSchema(ErrorBody), description: STATUS_TEXT[s] }]),
  );
}

export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Insurance Eligibility API',
        version,
        description:
          'Asynchronous insurance eligibility checks (X12 270/271). Submit a check, then poll its status or receive ' +
          'one signed webhook. Errors use one envelope: `{ code, message }`.',
      },
      components: {
        securitySchemes: {
          ApiKeyAuth: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: 'The word `Key`, a space, then the API key: `Authorization: Key elig_test_...`',
          },
        },
      },
    },
    hideUntagged: true,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
