/**
 * The one error envelope of the API (docs/contract.md "The error envelope"): `{ code, message }`, built here
 * and nowhere else.
 */
import Type, { type Static } from 'typebox';

export const ERROR_CODES = [
  'ValidationException',
  'UnauthorizedException',
  'AccessDeniedException',
  'ResourceNotFoundException',
  'ThrottlingException',
  'InternalFailureException',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** What a 503 tells clients to wait: about how long a failover or a reconnect takes. */
export const RETRY_AFTER_SECONDS = 5;

export const ErrorBody = Type.Object(
  {
    code: Type.Enum(ERROR_CODES),
    message: Type.String(),
  },
  { $id: 'Error', title: 'Error', description: 'The one error envelope of every error answer.' },
);
export type ErrorBody = Static<typeof ErrorBody>;

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody(): ErrorBody {
    return { code: this.code, message: this.message };
  }
}

export const unauthorized = (message = 'Missing or invalid API key. Send "Authorization: Key <API key>".') =>
  new ApiError(401, 'UnauthorizedException', message);
export const accessDenied = (message: string) => new ApiError(403, 'AccessDeniedException', message);
export const notFound = (message: string) => new ApiError(404, 'ResourceNotFoundException', message);
export const validation = (message: string, statusCode = 400) =>
  new ApiError(statusCode, 'ValidationException', message);
/** 429 for a limit of the organization (not the key's rate): the message says which, Retry-After how long. */
export const throttled = (message: string, retryAfterSeconds: number) =>
  new ApiError(429, 'ThrottlingException', message, { 'retry-after': String(retryAfterSeconds) });
/** The database (or another dependency) cannot serve the request now: 503 with Retry-After, never a hang. */
export const unavailable = (message = 'The service is temporarily unavailable. Retry shortly.') =>
  new ApiError(503, 'InternalFailureException', message, { 'retry-after': String(RETRY_AFTER_SECONDS) });
