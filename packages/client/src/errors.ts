/**
 * Typed errors: every error answer of the API is one JSON envelope, `{code, message}`, and each `code` of the
 * spec (section 7) becomes a class, so callers can branch with `instanceof` rather than on status numbers.
 * All of them extend EligibilityApiError, which carries the HTTP status, the code and the server's message
 * (the service never puts patient data in a message, so logging `err.message` is safe).
 */
import type { components } from './generated/openapi.ts';

/** The `code` values of the error envelope, from the OpenAPI document. */
export type ErrorCode = components['schemas']['Error']['code'];

/**
 * An answer that is not the envelope: a proxy's HTML error page, a body that is not JSON, an unknown code.
 * Kept apart from the spec's codes so a `switch` over ErrorCode stays exhaustive.
 */
export type UnexpectedCode = 'UnexpectedResponse';

export class EligibilityApiError extends Error {
  override readonly name: string = 'EligibilityApiError';
  /** The HTTP status of the answer. */
  readonly status: number;
  readonly code: ErrorCode | UnexpectedCode;
  /**
   * Seconds the server asked to wait (`Retry-After`) before trying again: sent with 429 and 503. Undefined
   * when the answer had none.
   */
  readonly retryAfter: number | undefined;

  constructor(
    status: number,
    code: ErrorCode | UnexpectedCode,
    message: string,
    retryAfter?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

/** 400, 405, 413, 415, 422: the request itself is wrong; sending it again will not help. */
export class ValidationException extends EligibilityApiError {
  override readonly name = 'ValidationException';
}
/** 401: no key, another scheme, or an unknown or revoked key. */
export class UnauthorizedException extends EligibilityApiError {
  override readonly name = 'UnauthorizedException';
}
/** 403: the key lacks the operation's scope, or the organization is not enabled for eligibility. */
export class AccessDeniedException extends EligibilityApiError {
  override readonly name = 'AccessDeniedException';
}
/** 404: no such check or batch in your organization (another organization's is a 404 too). */
export class ResourceNotFoundException extends EligibilityApiError {
  override readonly name = 'ResourceNotFoundException';
}
/** 429: the key's rate limit is exhausted; wait `retryAfter` seconds. */
export class ThrottlingException extends EligibilityApiError {
  override readonly name = 'ThrottlingException';
}
/** 500 (with a reference to quote to support) or 503 (database unreachable; `retryAfter` says when to retry). */
export class InternalFailureException extends EligibilityApiError {
  override readonly name = 'InternalFailureException';
}

type ErrorClass = new (
  status: number,
  code: ErrorCode,
  message: string,
  retryAfter?: number,
) => EligibilityApiError;

const CLASSES: Record<ErrorCode, ErrorClass> = {
  ValidationException,
  UnauthorizedException,
  AccessDeniedException,
  ResourceNotFoundException,
  ThrottlingException,
  InternalFailureException,
};

function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(CLASSES, code);
}

/**
 * `Retry-After` in seconds: delta-seconds, or an HTTP date (RFC 9110 section 10.2.3) turned into the
 * seconds from `now`. Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/** The error an answer stands for: its envelope's class, or EligibilityApiError for anything else. */
export function errorFromAnswer(status: number, headers: Headers, body: unknown): EligibilityApiError {
  const retryAfter = parseRetryAfter(headers.get('retry-after'));
  if (typeof body === 'object' && body !== null) {
    const { code, message } = body as { code?: unknown; message?: unknown };
    if (isErrorCode(code) && typeof message === 'string') {
      return new CLASSES[code](status, code, message, retryAfter);
    }
  }
  // Not the envelope (a proxy or load balancer answered): the body is not echoed, it may be anything.
  return new EligibilityApiError(
    status,
    'UnexpectedResponse',
    `The server answered ${status} without the API's error envelope.`,
    retryAfter,
  );
}

/**
 * waitForCheck gave up: the check was still IN_PROGRESS when `timeoutMs` ran out. `cause` is the last error
 * met while polling (a 429, a 503, a network failure), if the last attempt failed.
 */
export class WaitTimeoutError extends Error {
  override readonly name = 'WaitTimeoutError';
  readonly checkId: string;
  readonly timeoutMs: number;

  constructor(checkId: string, timeoutMs: number, cause?: unknown) {
    super(
      `Check ${checkId} was still IN_PROGRESS after ${timeoutMs} ms.`,
      cause === undefined ? undefined : { cause },
    );
    this.checkId = checkId;
    this.timeoutMs = timeoutMs;
  }
}
