/**
 * The OpenAPI 3.1 document, generated from the same TypeBox schemas that validate requests and serialize
 * answers. A schema with an `$id` (the contract's types, a route's own) is a named, reusable schema: every
 * route registered after `registerOpenApi` has each such schema listed once under `components.schemas` and
 * referenced with `$ref`, with nothing to register by hand. Fastify's compilers get the same schemas with the
 * `$id`s removed (one type, e.g. Address, appears several times in one answer, and repeated ids would
 * collide in the serializer).
 */
import swagger from '@fastify/swagger';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { ErrorBody } from './errors.ts';
import { webhookDescriptions } from './openapi-webhooks.ts';

/** The version of the interface (docs/contract.md), not of the package: it changes when the contract does. */
export const API_VERSION = '1.0.0';

const COMPONENTS = '#/components/schemas/';

/** Why each status is answered, by default; a route names its own reason where it is more precise. */
const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid request: a field, the JSON, a query parameter or a header is wrong (ValidationException).',
  401: 'Missing, malformed or revoked API key (UnauthorizedException).',
  403: 'The key lacks the scope, or the organization is not enabled for eligibility checks (AccessDeniedException).',
  404: 'No such resource in your organization (ResourceNotFoundException).',
  413: 'Request body larger than 64 KB (ValidationException).',
  415: 'The body is not sent as `Content-Type: application/json` (ValidationException).',
  422: 'The Idempotency-Key was used before with a different body (ValidationException).',
  429: 'Rate limit of the key exceeded; wait `Retry-After` seconds (ThrottlingException).',
  500: 'Unexpected server error; the message carries a reference for support (InternalFailureException).',
  503: 'The service cannot reach its database right now; retry after `Retry-After` seconds (InternalFailureException).',
};

/** The 429 of a write: its key and its organization (across all its keys) each have a submit limit. */
export const WRITE_THROTTLED =
  'Rate limit of the key (RATE_LIMIT_SUBMIT) or of its organization across all its keys (RATE_LIMIT_SUBMIT_PER_ORGANIZATION) exceeded; wait `Retry-After` seconds. A retry with the same Idempotency-Key finds the token kept for it and is not refused again';

type Json = { [key: string]: unknown };
type Header = { type: 'integer' | 'string'; description: string };

const RETRY_AFTER: Header = { type: 'integer', description: 'Seconds to wait before asking again.' };
const RATE_LIMIT_HEADERS: Record<string, Header> = {
  'RateLimit-Limit': { type: 'integer', description: 'Requests the key may burst.' },
  'RateLimit-Remaining': { type: 'integer', description: 'Requests left in the burst now.' },
  'RateLimit-Reset': { type: 'integer', description: 'Seconds until the burst is full again.' },
};

/** What a response may carry besides its schema: headers, and named examples of its body. */
interface ResponseOptions {
  headers?: Record<string, Header>;
  examples?: Record<string, { summary: string; value: unknown }>;
}

/** A JSON response of a route schema, in the form Fastify serializes and the document describes as is. */
export function jsonResponse(description: string, schema: object, options: ResponseOptions = {}) {
  return {
    description,
    ...(options.headers ? { headers: options.headers } : {}),
    content: { 'application/json': { schema, ...(options.examples ? { examples: options.examples } : {}) } },
  };
}

/** A success answer that also carries the key's rate limit headers. */
export function successResponse(description: string, schema: object, options: ResponseOptions = {}) {
  return jsonResponse(description, schema, {
    ...options,
    headers: { ...RATE_LIMIT_HEADERS, ...options.headers },
  });
}

/** The `{code, message}` answers of a route: each status with why it is answered (`reasons` overrides). */
export function errorResponses(
  statuses: readonly number[],
  reasons: Partial<Record<number, string>> = {},
): Record<number, ReturnType<typeof jsonResponse>> {
  return Object.fromEntries(
    statuses.map((s) => {
      const description = reasons[s] ?? STATUS_TEXT[s];
      if (!description) throw new Error(`no reason for status ${s}: add one to STATUS_TEXT or pass it`);
      const headers = s === 429 || s === 503 ? { 'Retry-After': RETRY_AFTER } : undefined;
      return [s, jsonResponse(description, ErrorBody, { headers })];
    }),
  );
}

export interface OpenApiOptions {
  /** Where clients reach the API (PUBLIC_URL, else the listening address); read when the document is served. */
  serverUrl?: () => string | undefined;
  /** The package version (`info.x-service-version`); `info.version` is the interface's. */
  serviceVersion?: string;
}

/**
 * Registers @fastify/swagger and `GET /openapi.json`. Call it before any route: its `onRoute` hook names the
 * `$id` schemas of every route registered afterwards, in any plugin.
 */
export async function registerOpenApi(app: FastifyInstance, options: OpenApiOptions = {}): Promise<void> {
  const components = new ComponentRegistry();
  components.reference(ErrorBody);
  const webhooks = webhookDescriptions((schema) => components.reference(schema));
  const documented = new WeakMap<RouteOptions, RouteOptions['schema']>();

  /** `post /api/eligibility` → the examples of its body, by media type. */
  const bodyExamples = new Map<string, Record<string, unknown>>();

  app.addHook('onRoute', (route) => {
    if (!route.schema) return;
    const schema = route.schema as Json;
    // As @fastify/swagger's `hideUntagged`: only a tagged, unhidden route is in the document.
    if (!schema.hide && schema.tags) {
      documented.set(route, components.documentSchema(schema));
      const examples = components.bodyExamples(schema);
      for (const method of [route.method].flat()) {
        if (examples) bodyExamples.set(`${method.toLowerCase()} ${documentPath(route.url)}`, examples);
      }
    }
    route.schema = withoutIds(schema);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Insurance Eligibility API',
        version: API_VERSION,
        ...(options.serviceVersion ? { 'x-service-version': options.serviceVersion } : {}),
        description: [
          'Asynchronous insurance eligibility checks (X12 270/271). Submit a check (`POST /api/eligibility`, answered',
          '**202** with its id), then poll `GET /api/eligibility/{id}/status` (an IN_PROGRESS answer carries',
          '`Retry-After`) or receive one signed webhook per finished check (see `webhooks`).',
          '',
          'Every error is answered with one envelope, `{ "code": "...", "message": "..." }`; docs/api.md lists each',
          'status code and why it is answered. A path that does not exist answers 404 and a known path asked with',
          'another method answers 405 with `Allow`, both with the envelope.',
          '',
          'Try it without a payer contract: the built-in sandbox payer (`tradingPartnerServiceId: "SANDBOX"`) answers',
          'for the members of docs/sandbox.md; the examples below are its real answers.',
          '',
          'The same checks speak FHIR R4 under `/fhir/R4` (tag FHIR, docs/fhir.md): submit a',
          'CoverageEligibilityRequest, then search CoverageEligibilityResponse by request. Its bodies are FHIR',
          'resources and its errors OperationOutcomes; it also takes the key as `Authorization: Bearer <API key>`.',
        ].join('\n'),
      },
      tags: [
        { name: 'Eligibility', description: 'Eligibility checks, one at a time or in batches.' },
        {
          name: 'Monitors',
          description: 'Recurring checks of one patient: every N days, or before each appointment.',
        },
        { name: 'Payers', description: 'The payers this service can check.' },
        {
          name: 'FHIR',
          description:
            'The FHIR R4 face (`/fhir/R4`): CoverageEligibilityRequest in, CoverageEligibilityResponse out; errors are OperationOutcomes. The mapping is in docs/fhir.md.',
        },
        {
          name: 'Operator',
          description:
            "For the service's operators, not for API keys: counts across every organization, behind METRICS_TOKEN.",
        },
      ],
      webhooks,
      components: {
        securitySchemes: {
          ApiKeyAuth: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: [
              'The word `Key`, a space, then the API key: `Authorization: Key elig_test_...`.',
              '',
              'Get a key in the provider portal under Settings > API keys (`/portal/settings/api-keys`: an owner',
              'creates it with a name and the scopes it needs, and sees its value once), or on the server with',
              '`elig key create --org ORG_ID --name NAME`. The first start of a new installation prints a test key.',
              'Keep keys out of source control; a lost key cannot be shown again: create a new one and revoke the old.',
            ].join('\n'),
          },
          OperatorToken: {
            type: 'http',
            scheme: 'bearer',
            description:
              'The METRICS_TOKEN of the service (`Authorization: Bearer <token>`), as for `/metrics`.',
          },
        },
      },
    },
    hideUntagged: true,
    transform: ({ schema, url, route }) => ({ schema: documented.get(route) ?? schema, url }),
    transformObject: (doc) => {
      if (!('openapiObject' in doc)) return doc.swaggerObject;
      // Only the named schemas met by the routes and webhooks: none is written by hand.
      doc.openapiObject.components ??= {};
      (doc.openapiObject.components as { schemas?: object }).schemas = components.all();
      addBodyExamples(doc.openapiObject.paths as Json | undefined, bodyExamples);
      return doc.openapiObject;
    },
  });

  app.get('/openapi.json', { schema: { hide: true } }, async () => {
    const doc = app.swagger() as Json;
    const url = options.serverUrl?.();
    // `servers` right after `info`, as people read the document; the rest keeps its order.
    const { openapi, info, ...rest } = doc;
    return { openapi, info, ...(url ? { servers: [{ url, description: 'This service' }] } : {}), ...rest };
  });
}

/** The named schemas met so far; the same name for two different schemas is a startup error. */
class ComponentRegistry {
  private readonly byName = new Map<string, { schema: Json; text: string }>();

  /** `{ $ref }` to the named schema, registering it (and the named schemas inside it) on first sight. */
  reference(schema: object): { $ref: string } {
    const id = (schema as Json).$id;
    if (typeof id !== 'string') throw new Error('only a schema with an $id can be referenced');
    const { $id: _, ...body } = schema as Json;
    const named = this.refify(body) as Json;
    const text = JSON.stringify(named);
    const known = this.byName.get(id);
    if (known && known.text !== text) {
      throw new Error(`two different schemas are named ${id}: give one another $id`);
    }
    if (!known) this.byName.set(id, { schema: named, text });
    return { $ref: `${COMPONENTS}${id}` };
  }

  /** A copy of `value` with every `$id` schema inside it replaced by a reference. */
  private refify(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.refify(v));
    if (value === null || typeof value !== 'object') return value;
    if (typeof (value as Json).$id === 'string') return this.reference(value);
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.refify(v)]));
  }

  /**
   * The route schema as the document shows it: body and responses reference named schemas. Parameters
   * (params, querystring, headers) stay inline, as @fastify/swagger turns their properties into parameters.
   */
  documentSchema(schema: Json): Json {
    const doc: Json = { ...withoutIds({ ...schema, body: undefined, response: undefined }) };
    if (schema.body) doc.body = this.contentOf(schema.body as Json, 'Request body');
    if (schema.response) {
      doc.response = Object.fromEntries(
        Object.entries(schema.response as Json).map(([status, r]) => [
          status,
          this.contentOf(r as Json, 'Success'),
        ]),
      );
    }
    return doc;
  }

  /** A body or response in the `content` form, with its schemas referenced. */
  private contentOf(entry: Json, fallbackDescription: string): Json {
    if (!entry.content) {
      const description = typeof entry.description === 'string' ? entry.description : fallbackDescription;
      return { description, content: { 'application/json': { schema: this.refify(entry) } } };
    }
    const content = Object.fromEntries(
      Object.entries(entry.content as Record<string, Json>).map(([type, media]) => [
        type,
        { ...media, schema: this.refify(media.schema) },
      ]),
    );
    return { ...entry, content };
  }

  /**
   * The request body's examples by media type: @fastify/swagger keeps only the schema of a body's media
   * type, so `transformObject` puts them back (`examplesOfBodies`).
   */
  bodyExamples(schema: Json): Record<string, unknown> | undefined {
    const content = (schema.body as Json | undefined)?.content as Record<string, Json> | undefined;
    if (!content) return undefined;
    const found = Object.entries(content).filter(([, media]) => media.examples);
    return found.length
      ? Object.fromEntries(found.map(([type, media]) => [type, media.examples]))
      : undefined;
  }

  /** Every named schema, by name. */
  all(): Record<string, Json> {
    return Object.fromEntries(
      [...this.byName].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, v.schema]),
    );
  }
}

/** `/api/eligibility/:id/status` → `/api/eligibility/{id}/status`. */
function documentPath(url: string): string {
  return url.replace(/:(\w+)/g, '{$1}');
}

/** Puts the body examples of the route schemas into the document's request bodies. */
function addBodyExamples(paths: Json | undefined, examples: Map<string, Record<string, unknown>>): void {
  for (const [key, byType] of examples) {
    const [method, path] = key.split(' ') as [string, string];
    const operation = (paths?.[path] as Json | undefined)?.[method] as Json | undefined;
    const content = (operation?.requestBody as Json | undefined)?.content as Record<string, Json> | undefined;
    for (const [type, value] of Object.entries(byType)) {
      if (content?.[type]) content[type].examples = value;
    }
  }
}

/** A JSON copy without `$id`s (and without undefined members), for Fastify's validator and serializer. */
function withoutIds<T>(schema: T): T {
  return JSON.parse(JSON.stringify(schema, (k, v) => (k === '$id' ? undefined : v)));
}
