/**
 * @eligibility/client: a typed client for the eligibility service's JSON API and a verifier for its
 * webhooks. No dependencies: it needs only `fetch` and, for verifyWebhook, WebCrypto.
 */
export {
  type CallOptions,
  DEFAULT_WAIT_TIMEOUT_MS,
  EligibilityClient,
  type EligibilityClientOptions,
  type FetchLike,
  type GetBatchOptions,
  type ListMonitorsOptions,
  type SubmitOptions,
  type WaitOptions,
  type WaitProgress,
} from './client.ts';
export {
  AccessDeniedException,
  EligibilityApiError,
  type ErrorCode,
  InternalFailureException,
  ResourceNotFoundException,
  ThrottlingException,
  UnauthorizedException,
  type UnexpectedCode,
  ValidationException,
  WaitTimeoutError,
} from './errors.ts';
// Every named schema of the service's OpenAPI document, by its name (EligibilityCheckResponse, BenefitEntry,
// Provider, ...), and the document's `paths`, `operations`, `webhooks` and `components` for tools that read
// them (openapi-fetch and the like).
export type * from './generated/openapi.ts';
export type { Error as ErrorBody } from './generated/openapi.ts';
export { DEFAULT_POLL_TIMING, type PollTiming, pollDelayMs } from './polling.ts';
export {
  DEFAULT_TOLERANCE_SECONDS,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookFailureReason,
  type WebhookHeaders,
  type WebhookVerification,
} from './webhooks.ts';
