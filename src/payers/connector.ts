/**
 * A payer connector takes the X12 270 the service built and returns the payer's X12 271 text.
 * Failures are typed: a transient failure is retried with backoff, a permanent one fails the check.
 */

export interface PayerCallOptions {
  /** Aborted when the call's time budget is spent or the worker shuts down. */
  signal: AbortSignal;
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

/** The payer will never answer this inquiry: do not retry. */
export class PermanentPayerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentPayerError';
  }
}

/** A payer the service can reach, as listed in the payer directory. */
export interface PayerEntry {
  tradingPartnerServiceId: string;
  payerName: string;
  /** Identifier sent in the 270 (NM1*PR NM109) and ISA08/GS03. */
  payerId: string;
  connector: PayerConnector;
}
