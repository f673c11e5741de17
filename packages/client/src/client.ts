/**
 * EligibilityClient: the service's JSON API over the global `fetch` (or one passed in), so it runs unchanged
 * in Node 20+, browsers, Deno, Bun and edge runtimes, with no dependency. Every error answer becomes a typed
 * error (errors.ts); waitForCheck polls a check to its end as the service asks (polling.ts).
 */
import {
  EligibilityApiError,
  errorFromAnswer,
  InternalFailureException,
  parseRetryAfter,
  ThrottlingException,
  WaitTimeoutError,
} from './errors.ts';
import type {
  BatchAccepted,
  BatchItem,
  BatchPage,
  BatchRequest,
  EligibilityCheckAccepted,
  EligibilityCheckRequest,
  EligibilityCheckResponse,
  EstimateRequest,
  EstimateResult,
  Monitor,
  MonitorDetail,
  MonitorPage,
  MonitorRequest,
  PayerList,
} from './generated/openapi.ts';
import { type PollTiming, pollDelayMs, sleep } from './polling.ts';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface EligibilityClientOptions {
  /** Where the service answers, e.g. `https://eligibility.example.com` (the paths start with `/api`). */
  baseUrl: string;
  /** An API key (`elig_live_...` or `elig_test_...`), sent as `Authorization: Key <apiKey>`. */
  apiKey: string;
  /** A fetch to use instead of the global one (a proxy agent, retries of your own, tests). */
  fetch?: FetchLike;
}

export interface CallOptions {
  /** Aborts the request; the call then rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface SubmitOptions extends CallOptions {
  /**
   * Makes the submit safe to retry: the same key and body within 24 hours answer the same check (no second
   * check is created); the same key with another body is refused with a ValidationException (422).
   */
  idempotencyKey?: string;
}

export interface GetBatchOptions extends CallOptions {
  /** Only items with this status. */
  status?: EligibilityCheckResponse['status'];
  /** The `next` cursor of the previous page; absent for the first page. */
  after?: string | number;
  /** Items per page, 1 to 1000; the server's default is 100. */
  limit?: number;
}

export interface ListMonitorsOptions extends CallOptions {
  /** The `next` cursor of the previous page; absent for the first page. */
  after?: string;
  /** Monitors per page; the server's default applies when absent. */
  limit?: number;
}

/** What waitForCheck reports after each status read, before it waits again. */
export interface WaitProgress {
  checkId: string;
  /** Status reads made so far. */
  attempt: number;
  elapsedMs: number;
  /** `Retry-After` of the last answer, in seconds, when it had one. */
  retryAfterSeconds: number | undefined;
  /** How long the client waits before the next read. */
  nextPollMs: number;
  /** Set when the last read failed with an error worth retrying (429, 5xx, network); else the check is IN_PROGRESS. */
  error?: unknown;
}

export interface WaitOptions extends CallOptions, PollTiming {
  /** Give up (WaitTimeoutError) when the check is not finished after this long; default 10 minutes. */
  timeoutMs?: number;
  onProgress?: (progress: WaitProgress) => void;
}

/** The spec's guidance: checks typically finish within 10 minutes. */
export const DEFAULT_WAIT_TIMEOUT_MS = 10 * 60 * 1000;

interface Answer<T> {
  body: T;
  headers: Headers;
}

export class EligibilityClient {
  private readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly fetch: FetchLike;

  constructor(options: EligibilityClientOptions) {
    if (!options?.apiKey) throw new TypeError('EligibilityClient needs an apiKey.');
    // Parsed once here so a typo fails at construction, not as a network error on the first call.
    const url = new URL(options.baseUrl);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new TypeError('EligibilityClient baseUrl must be an http(s) URL.');
    }
    this.baseUrl = url.href.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function') {
      throw new TypeError('No global fetch here: pass one as the fetch option.');
    }
    // The global fetch must be called on globalThis (browsers throw "Illegal invocation" otherwise).
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** POST /api/eligibility: accepted at once (202) with the check's id; the check runs asynchronously. */
  submitCheck(body: EligibilityCheckRequest, options: SubmitOptions = {}): Promise<EligibilityCheckAccepted> {
    return this.submit('/api/eligibility', body, options);
  }

  /** GET /api/eligibility/{id}/status: the check as it is now (IN_PROGRESS, COMPLETED or FAILED). */
  async getCheck(id: string, options: CallOptions = {}): Promise<EligibilityCheckResponse> {
    return (await this.readCheck(id, options.signal)).body;
  }

  /**
   * Polls a check until it is COMPLETED or FAILED and returns it. Waits at least the `Retry-After` the
   * server sends with each IN_PROGRESS answer, backing off the longer the check runs (polling.ts); a 429,
   * a 5xx or a network failure on the way is waited out in the same way. Rejects with WaitTimeoutError after
   * `timeoutMs`, with the signal's reason when `signal` aborts, and with the typed error of any other answer
   * (a 404 for an unknown id, a 401 for a revoked key).
   */
  async waitForCheck(id: string, options: WaitOptions = {}): Promise<EligibilityCheckResponse> {
    const { signal, onProgress } = options;
    const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
    if (!(timeoutMs > 0)) throw new RangeError('timeoutMs must be a positive number of milliseconds.');
    signal?.throwIfAborted();
    const started = Date.now();
    // One signal for the reads and the waits, aborted by the caller's signal or the overall timeout; which
    // of the two fired decides what the call rejects with.
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), timeoutMs);
    const onAbort = () => stop.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    let lastError: unknown;
    const stopped = () => (signal?.aborted ? signal.reason : new WaitTimeoutError(id, timeoutMs, lastError));
    try {
      for (let attempt = 1; ; attempt++) {
        let retryAfterSeconds: number | undefined;
        try {
          const answer = await this.readCheck(id, stop.signal);
          if (answer.body.status !== 'IN_PROGRESS') return answer.body;
          retryAfterSeconds = parseRetryAfter(answer.headers.get('retry-after'));
          lastError = undefined;
        } catch (err) {
          if (stop.signal.aborted) throw stopped();
          if (!worthRetrying(err)) throw err;
          lastError = err;
          retryAfterSeconds = err instanceof EligibilityApiError ? err.retryAfter : undefined;
        }
        const nextPollMs = pollDelayMs(attempt, retryAfterSeconds, options);
        onProgress?.({
          checkId: id,
          attempt,
          elapsedMs: Date.now() - started,
          retryAfterSeconds,
          nextPollMs,
          ...(lastError === undefined ? {} : { error: lastError }),
        });
        try {
          await sleep(nextPollMs, stop.signal);
        } catch {
          throw stopped();
        }
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * POST /api/eligibility/{id}/estimate: what the patient pays for `charges` (in order), from a COMPLETED
   * check's stored result, with no payer call: each estimate's steps and assumptions, and the totals. A
   * check still IN_PROGRESS, or FAILED, is refused with a ValidationException (409). docs/estimates.md.
   */
  async estimate(
    id: string,
    charges: EstimateRequest['charges'],
    options: CallOptions = {},
  ): Promise<EstimateResult> {
    const path = `/api/eligibility/${encodeURIComponent(id)}/estimate`;
    return (await this.call<EstimateResult>('POST', path, { body: { charges }, signal: options.signal }))
      .body;
  }

  /**
   * GET /api/payers: the payers this service can check; with `q`, those it matches, best first (typos,
   * abbreviations and states understood); `limit` caps how many.
   */
  async listPayers(options: CallOptions & { q?: string; limit?: number } = {}): Promise<PayerList> {
    const params = new URLSearchParams();
    if (options.q !== undefined) params.set('q', options.q);
    if (options.limit !== undefined) params.set('limit', String(options.limit));
    const query = params.size ? `?${params}` : '';
    return (await this.call<PayerList>('GET', `/api/payers${query}`, { signal: options.signal })).body;
  }

  /**
   * POST /api/eligibility/batch: 1 to 10,000 submit bodies at once. Invalid items are reported by index in
   * `problems` and the rest accepted, unless `atomic` is true (then a ValidationException refuses all).
   */
  submitBatch(body: BatchRequest, options: SubmitOptions = {}): Promise<BatchAccepted> {
    return this.submit('/api/eligibility/batch', body, options);
  }

  /** GET /api/eligibility/batch/{id}: counts, progress and one page of items (`next` is the next cursor). */
  async getBatch(id: string, options: GetBatchOptions = {}): Promise<BatchPage> {
    const query = new URLSearchParams();
    if (options.status !== undefined) query.set('status', options.status);
    if (options.after !== undefined) query.set('after', String(options.after));
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    const search = query.toString() ? `?${query}` : '';
    const path = `/api/eligibility/batch/${encodeURIComponent(id)}${search}`;
    return (await this.call<BatchPage>('GET', path, { signal: options.signal })).body;
  }

  /** Every item of a batch (or those with `status`), page after page. */
  async *batchItems(id: string, options: Omit<GetBatchOptions, 'after'> = {}): AsyncGenerator<BatchItem> {
    let after: string | undefined;
    do {
      const page = await this.getBatch(id, { ...options, after });
      yield* page.items;
      after = page.next ?? undefined;
    } while (after !== undefined);
  }

  /**
   * POST /api/eligibility/monitors: re-check one patient every `every` days or before each of `dates`
   * (201, the monitor). Each run is an ordinary check; a change since the last check of the patient is sent as
   * a `coverage.changed` webhook.
   */
  createMonitor(body: MonitorRequest, options: SubmitOptions = {}): Promise<Monitor> {
    return this.submit('/api/eligibility/monitors', body, options);
  }

  /** GET /api/eligibility/monitors: one page of the organization's monitors (`next` is the next cursor). */
  async listMonitors(options: ListMonitorsOptions = {}): Promise<MonitorPage> {
    const query = new URLSearchParams();
    if (options.after !== undefined) query.set('after', options.after);
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    const search = query.toString() ? `?${query}` : '';
    return (
      await this.call<MonitorPage>('GET', `/api/eligibility/monitors${search}`, { signal: options.signal })
    ).body;
  }

  /** Every monitor of the organization, page after page. */
  async *monitors(options: Omit<ListMonitorsOptions, 'after'> = {}): AsyncGenerator<Monitor> {
    let after: string | undefined;
    do {
      const page = await this.listMonitors({ ...options, after });
      yield* page.monitors;
      after = page.next ?? undefined;
    } while (after !== undefined);
  }

  /** GET /api/eligibility/monitors/{id}: the monitor and its latest runs (each a check id, status and verdict). */
  async getMonitor(id: string, options: CallOptions = {}): Promise<MonitorDetail> {
    return (await this.call<MonitorDetail>('GET', this.monitorPath(id), { signal: options.signal })).body;
  }

  /** PATCH /api/eligibility/monitors/{id} `{status: "paused"}`: no runs until resumed. */
  pauseMonitor(id: string, options: CallOptions = {}): Promise<Monitor> {
    return this.setMonitorStatus(id, 'paused', options);
  }

  /** PATCH /api/eligibility/monitors/{id} `{status: "active"}`: a run missed while paused runs once, at once. */
  resumeMonitor(id: string, options: CallOptions = {}): Promise<Monitor> {
    return this.setMonitorStatus(id, 'active', options);
  }

  /** DELETE /api/eligibility/monitors/{id} (204): no more runs; the checks it made stay readable. */
  async deleteMonitor(id: string, options: CallOptions = {}): Promise<void> {
    await this.call<undefined>('DELETE', this.monitorPath(id), { signal: options.signal });
  }

  private monitorPath(id: string): string {
    return `/api/eligibility/monitors/${encodeURIComponent(id)}`;
  }

  private async setMonitorStatus(
    id: string,
    status: 'active' | 'paused',
    options: CallOptions,
  ): Promise<Monitor> {
    return (
      await this.call<Monitor>('PATCH', this.monitorPath(id), { body: { status }, signal: options.signal })
    ).body;
  }

  private async submit<T>(path: string, body: unknown, options: SubmitOptions): Promise<T> {
    const headers: Record<string, string> = {};
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    return (await this.call<T>('POST', path, { body, headers, signal: options.signal })).body;
  }

  private readCheck(id: string, signal: AbortSignal | undefined): Promise<Answer<EligibilityCheckResponse>> {
    return this.call('GET', `/api/eligibility/${encodeURIComponent(id)}/status`, { signal });
  }

  private async call<T>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    init: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal | undefined },
  ): Promise<Answer<T>> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: `Key ${this.apiKey}`,
      ...init.headers,
    };
    const request: RequestInit = { method, headers };
    if (init.body !== undefined) {
      headers['content-type'] = 'application/json';
      request.body = JSON.stringify(init.body);
    }
    if (init.signal) request.signal = init.signal;
    const response = await this.fetch(this.baseUrl + path, request);
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!response.ok) throw errorFromAnswer(response.status, response.headers, parsed);
    // 204 No Content (a deleted monitor): success with no body, by definition.
    if (response.status === 204) return { body: undefined as T, headers: response.headers };
    if (typeof parsed !== 'object' || parsed === null) {
      throw new EligibilityApiError(
        response.status,
        'UnexpectedResponse',
        `The server answered ${response.status} with a body that is not a JSON object.`,
      );
    }
    return { body: parsed as T, headers: response.headers };
  }
}

/**
 * Errors that say "not now" rather than "not this": the rate limit (429), the service or a proxy in front
 * of it failing (5xx), or no answer at all (fetch rejects with a TypeError on a network failure). Reading a
 * check changes nothing, so asking again is always safe.
 */
function worthRetrying(err: unknown): boolean {
  if (err instanceof ThrottlingException || err instanceof InternalFailureException) return true;
  if (err instanceof EligibilityApiError) return err.status >= 500 || err.status === 429;
  return err instanceof TypeError;
}
