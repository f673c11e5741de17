/**
 * What the routes called with an API key share: their options, the gates that authenticate and take from the
 * key's rate limit before anything else (a write's before its body is read), the `/:id` params, and for the
 * submit operations (a check, a batch, a monitor) the optional Idempotency-Key header and what a submit
 * needs from the app.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { isValidIdempotencyKey } from '../checks/idempotency.ts';
import type { ApiKeyAuthenticator } from './auth.ts';
import { ApiError, validation } from './errors.ts';
import type { RateLimiter } from './rate-limit.ts';

/** The options of every route called with an API key; routes that need more extend it. */
export interface KeyRouteOptions {
  auth: ApiKeyAuthenticator;
  /**
   * The key's rate limit for this kind of operation: app.ts passes the submit (write) one, which also
   * limits the organization across its keys, or the status (read) one.
   */
  limiter: RateLimiter;
}

/**
 * Path parameters of the `/:id` routes (a check, a batch, a monitor): declared so the document shows them
 * and the handler is typed; any string passes, and each handler answers 404 for an id it does not find.
 */
export const IdParams = Type.Object({ id: Type.String() });

/**
 * An `onRequest` hook for the read routes: a caller without a valid `eligibility:read` key, or over its
 * limit, is answered before its query or params are validated, so it learns nothing about them.
 */
export function readGate(auth: ApiKeyAuthenticator, limiter: RateLimiter) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const key = await auth.authenticate(request, 'eligibility:read');
    reply.headers(limiter.take(key.keyId));
  };
}

/** The request headers a submit reads besides `Authorization` (documentation: validated in the handler). */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description:
        'Same key + same body within 24 h answers the same check (or batch) again, with `Idempotent-Replayed: true`; the same key with another body answers 422.',
    }),
  ),
});

/** The answer header of a replayed submit (documentation). */
export const REPLAYED_HEADER = {
  'Idempotent-Replayed': {
    type: 'string' as const,
    description: '`true` when this answer repeats an earlier submit with the same Idempotency-Key and body.',
  },
};

/** `application/json`, with parameters (`; charset=utf-8`) or not; the submit bodies are JSON only. */
const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;

/** 415 for a body sent as anything but JSON: said before the body is read, and never a vague 400. */
export function unsupportedMediaType(): ApiError {
  return new ApiError(
    415,
    'ValidationException',
    'Send the body as JSON with Content-Type: application/json.',
  );
}

/**
 * An `onRequest` hook: a caller without a valid key, or over its limit, is answered at once and its body
 * (however large or slow) is never read. Validation runs later, in the handler, so an unauthenticated caller
 * learns nothing about what a valid body looks like.
 */
export function writeGate(auth: ApiKeyAuthenticator, limiter: RateLimiter) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const key = await auth.authenticate(request, 'eligibility:write');
    // The Idempotency-Key is how a retry is recognised: its booked token is kept for it (rate-limit.ts).
    const idempotencyKey = request.headers['idempotency-key'];
    reply.headers(
      limiter.take(key.keyId, {
        organizationId: key.organizationId,
        idempotencyKey: typeof idempotencyKey === 'string' ? idempotencyKey : undefined,
      }),
    );
    const type = request.headers['content-type'];
    if (type !== undefined && !JSON_MEDIA_TYPE.test(type)) throw unsupportedMediaType();
  };
}

/**
 * The route options of a write whose body is validated in its handler: the write gate, and no schema
 * validation before it (the body schema only documents the request), so `request.body` stays `unknown`.
 */
export function gatedWrite(auth: ApiKeyAuthenticator, limiter: RateLimiter) {
  return { validatorCompiler: () => () => true, onRequest: writeGate(auth, limiter) };
}

/** The Idempotency-Key header, if sent; a malformed one is a 400. */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const value = request.headers['idempotency-key'];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !isValidIdempotencyKey(value)) {
    throw validation('Idempotency-Key must be 1-255 printable ASCII characters.');
  }
  return value;
}

/**
 * What a submit (a check, a batch, a monitor) needs besides the body: its Idempotency-Key, and the payer
 * directory the intake reads (src/checks/intake.ts).
 */
export function submitContext(app: FastifyInstance, request: FastifyRequest) {
  return {
    idempotencyKey: idempotencyKeyOf(request),
    payers: app.payers,
  };
}

/** The same for a submit that stores checks at once (a check, a batch): also a way to wake the workers. */
export function checkSubmitContext(app: FastifyInstance, request: FastifyRequest) {
  return { ...submitContext(app, request), wake: () => app.checksNotifier.notify() };
}
