/**
 * A payer connector takes the X12 270 the service built and returns the payer's X12 271 text.
 * Failures are typed: a transient failure is retried with backoff, a permanent one fails the check.
 */
import type {
  ConnectionLimits,
  ConnectorType,
  EnrollmentState,
  MemberIdFormat,
  StcStrategy,
} from './directory-schema.ts';

export type { StcStrategy } from './directory-schema.ts';

export interface PayerCallOptions {
  /** Aborted when the call's time budget is spent or the worker shuts down. */
  signal: AbortSignal;
  /**
   * Called with the gateway's id of this exchange once known (CORE `PayloadID`, a clearinghouse request
   * id), so the call's one log line can name it. Never PHI.
   */
  onExchangeId?: (id: string) => void;
}

export interface PayerConnector {
  /** Stable connector name for logs and metrics (no PHI), e.g. `sandbox`. */
  readonly name: string;
  send(x12_270: string, options: PayerCallOptions): Promise<string>;
}

/** Timeouts, connection errors, "unable to respond now": retry later. */
export class TransientPayerError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'TransientPayerError';
  }
}

/**
 * The gateway refused our credentials (HTTP 401/403, a CORE authentication ErrorCode). Not the check's
 * fault and not fixed by retrying soon: the payer's breaker opens at once, operators are told (/readyz,
 * a metric, a log line), and checks wait as in an outage without spending attempts.
 */
export class PayerAuthenticationError extends TransientPayerError {
  constructor(message: string) {
    super(message);
    this.name = 'PayerAuthenticationError';
  }
}

/**
 * The connection (a clearinghouse account, a gateway) refused the call for its own rate or concurrency
 * limit (HTTP 429, a documented "too many requests" answer). It says nothing about the payer: the whole
 * connection backs off for `retryAfterMs`, the check waits without spending an attempt, and no payer's
 * breaker counts it.
 */
export class ConnectionThrottledError extends TransientPayerError {
  constructor(
    message: string,
    retryAfterMs?: number,
    /** `busy`: our own queue for the connection is full (no answer from it); `throttled`: it refused (429). */
    readonly kind: 'throttled' | 'busy' = 'throttled',
  ) {
    super(message, retryAfterMs);
    this.name = 'ConnectionThrottledError';
  }
}

/** The payer will never answer this inquiry: do not retry. */
export class PermanentPayerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentPayerError';
  }
}

/**
 * A way to reach payers: one connector (endpoint and credential) shared by every payer that names it, with
 * the account's limits. A payer's inline `connector` is a private connection named `payer:<id>`.
 */
export interface Connection {
  /** The name in PAYERS_FILE (`stedi`), or `payer:<id>` for an inline connector. Never a secret. */
  readonly name: string;
  readonly type: ConnectorType;
  readonly connector: PayerConnector;
  /** Account-wide limits; none: only each payer's own `concurrency` applies. */
  readonly limits?: ConnectionLimits;
  /** Default profile of the payers reached through it. */
  readonly stcStrategy?: StcStrategy;
  readonly timeoutMs?: number;
  /** The 270's ISA/GS ids where the connection overrides them. */
  readonly envelope?: EnvelopeIds;
}

/** A payer the service can reach, as listed in the payer directory. */
export interface PayerEntry {
  tradingPartnerServiceId: string;
  payerName: string;
  /** Identifier sent in the 270 (NM1*PR NM109) and ISA08/GS03. */
  payerId: string;
  /** The first connection's connector (what a payer with one connection is called through). */
  connector: PayerConnector;
  /**
   * The connections to try, in order: a check goes to the first whose breaker (for this payer) is closed.
   * Absent: one private connection around `connector`.
   */
  connections?: readonly Connection[];
  /** How service types are asked (per payer, else the connection's default, else `repeat`). */
  stcStrategy?: StcStrategy;
  /** False: this payer takes no eligibility inquiries here; submits are refused before any call. */
  eligibility?: boolean;
  enrollment?: EnrollmentState;
  /** Other ids that resolve to this payer; a check submitted under one is stored under the canonical id. */
  aliases?: readonly string[];
  /** Two-letter codes of the US states the payer operates in (payer search ranks by them). */
  states?: readonly string[];
  /** True: the payer answers a demographic search (no member id), so insurance discovery may ask it. */
  demographicSearch?: boolean;
  /** For listings, logs and metric labels; default the connector's `name`. */
  connectorType?: ConnectorType;
  /** Calls at once per worker process; default PAYER_CONCURRENCY. */
  concurrency?: number;
  /** Time budget of one call; default PAYER_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Member ids of this payer contain spaces or dashes: submission keeps them (default: removes them). */
  keepMemberIdSeparators?: boolean;
  /**
   * `mbi`: this payer's member ids are Medicare Beneficiary Identifiers (Medicare, a CMS-like payer): a
   * submit with another id is refused, and an AAA 72 from it says what an MBI is.
   */
  memberIdFormat?: MemberIdFormat;
  /** The 270's ISA/GS ids where they differ from X12_SENDER_ID/X12_SENDER_QUALIFIER and `payerId`/ZZ. */
  envelope?: EnvelopeIds;
  /**
   * What a check sent without service type codes asks: `products` (default) `30` and the codes the product
   * service types are read from; `plan` `30` alone (the sandbox, whose answer does not depend on the codes).
   */
  inquiryWithoutCodes?: 'products' | 'plan';
}

export interface EnvelopeIds {
  senderId?: string;
  senderQualifier?: string;
  receiverId?: string;
  receiverQualifier?: string;
  /** ISA15: `P` unless the entry says `T` (the sandbox payer, or a gateway's test environment). */
  usageIndicator?: 'P' | 'T';
}
