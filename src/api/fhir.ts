/**
 * The FHIR face, `/fhir/R4` (docs/fhir.md): an encapsulated plugin holding its routes (one file per
 * operation, `routes/fhir_*.ts`), the `application/fhir+json` body parser, and its own refusals: every error
 * under `/fhir` answers an OperationOutcome (src/fhir/outcome.ts), never the `{code, message}` envelope of
 * `/api`. Keys are the API's, read by the same authenticator; `Bearer` is accepted here only.
 */
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { FHIR_MEDIA_TYPE } from '../fhir/capability.ts';
import { FhirError, issueCodeOfStatus, operationOutcome } from '../fhir/outcome.ts';
import { DatabaseUnavailableError } from '../store/db.ts';
import type { AllowedMethods } from './allowed-methods.ts';
import type { ApiKeyAuthenticator } from './auth.ts';
import { ApiError, unavailable } from './errors.ts';
import { type FhirRouteOptions, sendResource } from './fhir-reply.ts';
import type { RateLimiter } from './rate-limit.ts';
import { fhirMetadataRoute } from './routes/fhir_metadata.ts';
import { fhirRequestCreateRoute } from './routes/fhir_request_create.ts';
import { fhirRequestReadRoute } from './routes/fhir_request_read.ts';
import { fhirResponseReadRoute } from './routes/fhir_response_read.ts';
import { fhirResponseSearchRoute } from './routes/fhir_response_search.ts';

export const FHIR_PREFIX = '/fhir/R4';

export interface FhirOptions {
  auth: ApiKeyAuthenticator;
  /** The submit (write) limiter of /api: a key's submits count alike on both faces. */
  submitLimiter: RateLimiter;
  readLimiter: RateLimiter;
  allowed: AllowedMethods;
  version: string;
  /** PUBLIC_URL: the base of `Location`, `fullUrl` and the CapabilityStatement; else the request's host. */
  publicUrl?: string;
}

/** `application/json` or `application/fhir+json`, with parameters or not. */
const JSON_BODY = /^application\/(fhir\+)?json\s*(;|$)/i;

export const fhirPlugin: FastifyPluginAsync<FhirOptions> = async (app, options) => {
  app.addContentTypeParser(
    FHIR_MEDIA_TYPE,
    { parseAs: 'string' },
    app.getDefaultJsonParser('error', 'error'),
  );
  app.setErrorHandler(fhirErrorHandler);
  app.setNotFoundHandler(fhirNotFound(options.allowed));
  const routeOptions: FhirRouteOptions = {
    version: options.version,
    baseUrl: (request) => `${options.publicUrl ?? `${request.protocol}://${request.host}`}${FHIR_PREFIX}`,
    gate: (scope) => async (request, reply) => {
      const key = await options.auth.authenticate(request, scope, { bearer: true });
      const limiter = scope === 'eligibility:write' ? options.submitLimiter : options.readLimiter;
      // As on /api: a retry carrying its Idempotency-Key finds the token kept for it (rate-limit.ts).
      const idempotencyKey = request.headers['idempotency-key'];
      reply.headers(
        limiter.take(key.keyId, {
          organizationId: key.organizationId,
          idempotencyKey: typeof idempotencyKey === 'string' ? idempotencyKey : undefined,
        }),
      );
      const type = request.headers['content-type'];
      if (request.method === 'POST' && type !== undefined && !JSON_BODY.test(type)) {
        throw new FhirError(415, [
          {
            code: 'not-supported',
            diagnostics: `Send the resource as JSON, Content-Type: ${FHIR_MEDIA_TYPE}.`,
          },
        ]);
      }
    },
  };
  await app.register(fhirMetadataRoute, routeOptions);
  await app.register(fhirRequestCreateRoute, routeOptions);
  await app.register(fhirRequestReadRoute, routeOptions);
  await app.register(fhirResponseSearchRoute, routeOptions);
  await app.register(fhirResponseReadRoute, routeOptions);
};

function sendOutcome(reply: FastifyReply, error: FhirError) {
  return sendResource(reply.headers(error.headers), error.statusCode, error.toOutcome());
}

/** A refusal of the API layer (a key, a limit) or of Fastify (the body) as the FHIR refusal it is. */
function asFhirError(err: FastifyError | ApiError | Error): FhirError | undefined {
  if (err instanceof FhirError) return err;
  const error = err instanceof DatabaseUnavailableError ? unavailable() : err;
  if (error instanceof ApiError) {
    const headers =
      error.statusCode === 401 ? { ...error.headers, 'www-authenticate': 'Key, Bearer' } : error.headers;
    return new FhirError(
      error.statusCode,
      [{ code: issueCodeOfStatus(error.statusCode), diagnostics: error.message }],
      headers,
    );
  }
  const fe = error as FastifyError;
  const status = fe.statusCode ?? 500;
  if (status === 413 || fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new FhirError(413, [
      { code: 'too-costly', diagnostics: 'The request body is larger than the service accepts.' },
    ]);
  }
  if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new FhirError(415, [
      { code: 'not-supported', diagnostics: `Send the resource as JSON, Content-Type: ${FHIR_MEDIA_TYPE}.` },
    ]);
  }
  if (status >= 400 && status < 500) {
    const diagnostics =
      fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
        ? 'The request body is empty; send a FHIR resource.'
        : /JSON/i.test(fe.message)
          ? 'The request body is not valid JSON.'
          : 'The request is malformed.';
    return new FhirError(400, [{ code: 'structure', diagnostics }]);
  }
  return undefined;
}

function fhirErrorHandler(
  err: FastifyError | ApiError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const known = asFhirError(err);
  if (known) return sendOutcome(reply, known);
  request.log.error({ err }, 'unhandled error');
  return sendOutcome(
    reply,
    new FhirError(500, [{ code: 'exception', diagnostics: `Internal error (reference ${request.id}).` }]),
  );
}

/** An unknown path under /fhir/R4 is a 404; a known one asked with another method a 405 with `Allow`. */
function fhirNotFound(allowed: AllowedMethods) {
  return (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '';
    const known = allowed.of(path);
    if (known) {
      reply.header('allow', known.methods.join(', '));
      return sendOutcome(
        reply,
        new FhirError(405, [
          {
            code: 'not-supported',
            diagnostics: `${request.method} is not supported on ${known.path}; it answers ${known.methods.join(', ')}.`,
          },
        ]),
      );
    }
    return sendOutcome(
      reply,
      new FhirError(404, [
        {
          code: 'not-found',
          diagnostics: 'No such FHIR interaction here: see the CapabilityStatement at /fhir/R4/metadata.',
        },
      ]),
    );
  };
}

/** For app.ts: a router rejection (a malformed URL) under /fhir, as an OperationOutcome. */
export function fhirFrameworkError(tooLong: boolean) {
  return JSON.stringify(
    operationOutcome([
      tooLong
        ? { code: 'not-found', diagnostics: 'No such resource.' }
        : { code: 'structure', diagnostics: 'The request URL is malformed.' },
    ]),
  );
}
