/**
 * The HTTP application: API routes, health, OpenAPI, and the one error envelope for everything a client
 * can get wrong. Dependencies are passed in; nothing here opens a database or starts a worker.
 */

import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { createPayerDirectory, type PayerDirectory } from '../payers/directory.ts';
import type { PayerProblem } from '../payers/health.ts';
import { CHECKS_CHANNEL } from '../store/channels.ts';
import { DatabaseUnavailableError, type Db } from '../store/db.ts';
import { createCoalescingNotifier, type Notifier } from '../store/notifier.ts';
import { createReadinessProbe } from '../store/readiness.ts';
import { type AllowedMethods, trackAllowedMethods } from './allowed-methods.ts';
import { ApiKeyAuthenticator } from './auth.ts';
import { closeConnectionsWithUnreadBodies, timeoutOptions } from './connection-limits.ts';
import { ApiError, unavailable } from './errors.ts';
import { FHIR_PREFIX, fhirFrameworkError, fhirPlugin } from './fhir.ts';
import { unsupportedMediaType } from './key-gates.ts';
import { registerOpenApi } from './openapi.ts';
import { RateLimiter } from './rate-limit.ts';
import { docsRoute } from './routes/docs.ts';
import { batchStatusRoute } from './routes/eligibility_batch_status.ts';
import { batchSubmitRoute } from './routes/eligibility_batch_submit.ts';
import { discoveryGetRoute } from './routes/eligibility_discovery_get.ts';
import { discoverySubmitRoute } from './routes/eligibility_discovery_submit.ts';
import { estimateRoute } from './routes/eligibility_estimate.ts';
import { monitorCreateRoute } from './routes/eligibility_monitor_create.ts';
import { monitorDeleteRoute } from './routes/eligibility_monitor_delete.ts';
import { monitorGetRoute } from './routes/eligibility_monitor_get.ts';
import { monitorListRoute } from './routes/eligibility_monitor_list.ts';
import { monitorUpdateRoute } from './routes/eligibility_monitor_update.ts';
import { statusRoute } from './routes/eligibility_status.ts';
import { submitRoute } from './routes/eligibility_submit.ts';
import { healthRoutes } from './routes/health.ts';
import { metricsRoute } from './routes/metrics.ts';
import { operatorScorecardRoute } from './routes/operator_scorecard.ts';
import { operatorScorecardPayerRoute } from './routes/operator_scorecard_payer.ts';
import { payersListRoute } from './routes/payers_list.ts';
import { rootRoute } from './routes/root.ts';

export const BODY_LIMIT_BYTES = 64 * 1024;

export interface AppMetrics {
  submitted(tradingPartnerServiceId: string): void;
  throttled(operation: string): void;
  registry: { contentType: string; metrics(): Promise<string> };
}

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    metrics?: AppMetrics;
    /** Wakes check workers after a submit (coalesced NOTIFY). */
    checksNotifier: Notifier;
    /** The payer directory: aliases are stored under their canonical id; listed by GET /api/payers. */
    payers?: PayerDirectory;
  }
}

/**
 * The configuration the API reads (src/config.ts): the composition root passes its whole `Config`, and the
 * API sees only this section of it.
 */
export type ApiSettings = Pick<
  Config,
  | 'publicUrl'
  | 'trustedProxies'
  | 'metricsToken'
  | 'dbRequestBudgetMs'
  | 'rateLimitSubmit'
  | 'rateLimitSubmitPerOrganization'
  | 'rateLimitStatus'
  | 'batchMaxPendingChecks'
  | 'discoveryMaxInquiriesPerDay'
  | 'monitorMaxPerOrganization'
  | 'httpHeadersTimeoutMs'
  | 'httpRequestTimeoutMs'
  | 'httpIdleTimeoutMs'
  | 'httpKeepAliveTimeoutMs'
>;

export interface AppOptions {
  db: Db;
  log: Logger;
  apiKeyPepper: Buffer;
  version: string;
  settings: ApiSettings;
  metrics?: AppMetrics;
  /** The payer directory (GET /api/payers; submitted aliases become canonical ids). */
  payers?: PayerDirectory;
  /** Payers refusing our credentials, for /readyz (src/payers/health.ts). */
  payerProblems?: () => PayerProblem[];
  /** The address the app listens on, once known: the OpenAPI `servers` URL when PUBLIC_URL is not set. */
  listenUrl?: () => string;
}

export async function buildApp(
  opts: AppOptions,
): Promise<{ app: FastifyInstance; auth: ApiKeyAuthenticator }> {
  const app = createServer(opts.log, opts.settings);
  closeConnectionsWithUnreadBodies(app);
  decorateServices(app, opts);
  const auth = new ApiKeyAuthenticator(opts.db, opts.apiKeyPepper);
  const allowed = trackAllowedMethods(app);
  app.setErrorHandler(errorHandler(opts.metrics));
  app.setNotFoundHandler(notFoundHandler(allowed));
  const { publicUrl } = opts.settings;
  await registerOpenApi(app, {
    serverUrl: () => publicUrl ?? (opts.listenUrl?.() || undefined),
    serviceVersion: opts.version,
  });
  await registerRoutes(app, opts, auth, allowed);
  return { app, auth };
}

/** The Fastify instance: body and time limits, trusted proxies, and the envelope for router rejections. */
function createServer(log: Logger, settings: ApiSettings): FastifyInstance {
  return Fastify({
    loggerInstance: log as unknown as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    ...timeoutOptions({
      headersMs: settings.httpHeadersTimeoutMs,
      requestMs: settings.httpRequestTimeoutMs,
      idleMs: settings.httpIdleTimeoutMs,
      keepAliveMs: settings.httpKeepAliveTimeoutMs,
    }),
    // Per-request lines are off: they would carry URLs and timings only, and cost throughput.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: settings.trustedProxies.length ? settings.trustedProxies : false,
    return503OnClosing: true,
    routerOptions: { maxParamLength: 200 },
    // Router-level rejections (undecodable URL, over-long path parameter) also get the envelope.
    frameworkErrors: (err, request, res) => {
      const tooLong = err.code === 'FST_ERR_MAX_PARAM_LENGTH';
      const reply = res as unknown as {
        code(n: number): { header(k: string, v: string): { send(b: unknown): void }; send(b: unknown): void };
      };
      if (request.url.startsWith(`${FHIR_PREFIX}/`)) {
        return reply
          .code(tooLong ? 404 : 400)
          .header('content-type', 'application/fhir+json; charset=utf-8')
          .send(fhirFrameworkError(tooLong));
      }
      reply
        .code(tooLong ? 404 : 400)
        .send(
          tooLong
            ? { code: 'ResourceNotFoundException', message: 'No such resource.' }
            : { code: 'ValidationException', message: 'The request URL is malformed.' },
        );
    },
  });
}

/** What the route plugins read from the instance (see the `declare module` above). */
function decorateServices(app: FastifyInstance, opts: AppOptions): void {
  app.decorate('db', opts.db);
  const checksNotifier = createCoalescingNotifier(opts.db, CHECKS_CHANNEL);
  app.decorate('checksNotifier', checksNotifier);
  app.addHook('onClose', () => checksNotifier.flush());
  if (opts.metrics) app.decorate('metrics', opts.metrics);
  if (opts.payers) app.decorate('payers', opts.payers);
}

/** Unknown paths answer 404; a known path asked with another method answers 405 with its `Allow`. */
function notFoundHandler(allowed: ReturnType<typeof trackAllowedMethods>) {
  return (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '';
    const known = allowed.of(path);
    if (known) {
      // The path exists; the method does not. Name the route's own form, never the path as sent.
      return reply
        .code(405)
        .header('allow', known.methods.join(', '))
        .send({
          code: 'ValidationException',
          message: `${request.method} is not allowed on ${known.path}; it answers ${known.methods.join(', ')}.`,
        });
    }
    return reply.code(404).send({
      code: 'ResourceNotFoundException',
      message: `No route ${request.method} ${request.url.split('?')[0]}.`,
    });
  };
}

/** The one error envelope: every error a request ends with, as `{code, message}` and its status. */
function errorHandler(metrics: AppMetrics | undefined) {
  return (thrown: FastifyError | ApiError | Error, request: FastifyRequest, reply: FastifyReply) => {
    let err = thrown;
    if (err instanceof DatabaseUnavailableError) {
      request.log.warn({ reason: err.reason }, 'database unavailable');
      err = unavailable();
    }
    if (err instanceof ApiError) {
      if (err.statusCode === 429) metrics?.throttled(request.routeOptions.url ?? 'unknown');
      return reply.code(err.statusCode).headers(err.headers).send(err.toBody());
    }
    const fe = err as FastifyError;
    const status = fe.statusCode ?? 500;
    if (status === 413 || fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.code(413).send({
        code: 'ValidationException',
        message: `Request body exceeds ${request.routeOptions.bodyLimit ?? BODY_LIMIT_BYTES} bytes.`,
      });
    }
    if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply.code(415).send(unsupportedMediaType().toBody());
    }
    if (fe.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
      return reply.code(400).send({
        code: 'ValidationException',
        message: 'The Content-Length does not match the body sent.',
      });
    }
    if (fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
      return reply
        .code(400)
        .send({ code: 'ValidationException', message: 'The request body is empty; send a JSON object.' });
    }
    if (status >= 400 && status < 500) {
      // Malformed JSON, bad headers and other client errors: say what is wrong without echoing input.
      const message = /JSON/i.test(fe.message)
        ? 'The request body is not valid JSON.'
        : 'The request is malformed.';
      return reply.code(status === 404 ? 404 : 400).send({
        code: status === 404 ? 'ResourceNotFoundException' : 'ValidationException',
        message,
      });
    }
    request.log.error({ err }, 'unhandled error');
    return reply
      .code(500)
      .send({ code: 'InternalFailureException', message: `Internal error (reference ${request.id}).` });
  };
}

/**
 * The routes, each its own encapsulated plugin: it sees the decorators above and the options it is given. Each
 * names the decorators it reads with fastify-plugin (`encapsulate: true` keeps what it adds to itself), so
 * Fastify refuses to start, naming the decorator, when a route is registered where they are missing.
 * Writes share the submit limiter (per key, and per organization across its keys) and reads one status limiter
 * each, for checks, batches and monitors alike.
 */
async function registerRoutes(
  app: FastifyInstance,
  opts: AppOptions,
  auth: ApiKeyAuthenticator,
  allowed: AllowedMethods,
) {
  const { settings } = opts;
  const submit = { ratePerSecond: settings.rateLimitSubmit, burst: settings.rateLimitSubmit * 2 };
  const status = { ratePerSecond: settings.rateLimitStatus, burst: settings.rateLimitStatus * 2 };
  await app.register(rootRoute);
  await app.register(docsRoute);
  await app.register(healthRoutes, {
    readiness: createReadinessProbe(opts.db, settings.dbRequestBudgetMs),
    payerProblems: opts.payerProblems,
  });
  // Never below one key's limit: raising RATE_LIMIT_SUBMIT alone still raises what a one-key organization gets.
  const organizationRate = Math.max(settings.rateLimitSubmitPerOrganization, settings.rateLimitSubmit);
  const perOrganization = { ratePerSecond: organizationRate, burst: organizationRate * 2 };
  const submitLimiter = new RateLimiter(submit, undefined, perOrganization);
  await app.register(submitRoute, { auth, limiter: submitLimiter });
  await app.register(statusRoute, { auth, limiter: new RateLimiter(status) });
  await app.register(estimateRoute, { auth, limiter: new RateLimiter(status) });
  await app.register(batchSubmitRoute, {
    auth,
    limiter: submitLimiter,
    maxPendingChecks: settings.batchMaxPendingChecks,
  });
  await app.register(batchStatusRoute, { auth, limiter: new RateLimiter(status) });
  await app.register(discoverySubmitRoute, {
    auth,
    limiter: submitLimiter,
    maxInquiriesPerDay: settings.discoveryMaxInquiriesPerDay,
  });
  await app.register(discoveryGetRoute, { auth, limiter: new RateLimiter(status) });
  const readLimiter = new RateLimiter(status);
  await app.register(monitorCreateRoute, {
    auth,
    limiter: submitLimiter,
    maxPerOrganization: settings.monitorMaxPerOrganization,
  });
  await app.register(monitorListRoute, { auth, limiter: readLimiter });
  await app.register(monitorGetRoute, { auth, limiter: readLimiter });
  await app.register(monitorUpdateRoute, { auth, limiter: submitLimiter });
  await app.register(monitorDeleteRoute, { auth, limiter: submitLimiter });
  await app.register(payersListRoute, {
    auth,
    limiter: new RateLimiter(status),
    payers: opts.payers ?? createPayerDirectory([]),
  });
  await app.register(fhirPlugin, {
    prefix: FHIR_PREFIX,
    auth,
    submitLimiter,
    readLimiter: new RateLimiter(status),
    allowed,
    version: opts.version,
    publicUrl: settings.publicUrl,
  });
  if (opts.metrics) await app.register(metricsRoute, { metrics: opts.metrics, token: settings.metricsToken });
  // Served (with a 404 answer) without a token too, so the document always describes them.
  await app.register(operatorScorecardRoute, { db: opts.db, token: settings.metricsToken });
  await app.register(operatorScorecardPayerRoute, { db: opts.db, token: settings.metricsToken });
}
