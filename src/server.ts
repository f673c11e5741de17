/**
 * Composition root: opens the store, builds the app and the workers for the requested roles, bootstraps
 * an empty store, and shuts everything down gracefully.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { buildApp } from './api/app.ts';
import { adminRoutes } from './api/routes/admin.ts';
import { type Config, ConfigError, withDotEnv } from './config.ts';
import { DatabaseLimitStore } from './directory/limit-store.ts';
import { DirectoryService } from './directory/service.ts';
import { createLogger, type Logger } from './log.ts';
import { Metrics } from './metrics.ts';
import { MonitorScheduler } from './monitors/scheduler.ts';
import { projectPath } from './paths.ts';
import type { PayerEntry } from './payers/connector.ts';
import type { GatewayConnector } from './payers/connector-deps.ts';
import type { ConnectorFactories } from './payers/connectors.ts';
import { createPayerDirectory, type PayerDirectory } from './payers/directory.ts';
import { type LoadOptions, readPayersFile } from './payers/directory-file.ts';
import type { PayerDirectoryFile } from './payers/directory-schema.ts';
import { PayerGuard } from './payers/guard.ts';
import { payerProblems } from './payers/health.ts';
import { ConnectionLimiter, LocalLimitStore } from './payers/limits.ts';
import { createSandboxConnector } from './payers/sandbox/index.ts';
import { PORTAL_PREFIX, portalPlugin, portalSettings } from './portal/index.ts';
import { openStore, type Store } from './store/open.ts';
import { type BootstrapResult, bootstrapIfEmpty } from './tenancy/bootstrap.ts';
import { deriveServiceKeys, loadOrCreateMasterSecret, type ServiceKeys } from './tenancy/master-secret.ts';
import { createSchedule } from './webhooks/schedule.ts';
import { createSecretBox, type SecretBox } from './webhooks/signing-secrets.ts';
import { CheckWorker } from './workers/check-worker.ts';
import { ScorecardRecorder } from './workers/payer-scorecard.ts';
import { startRetention } from './workers/retention.ts';
import { WebhookDispatcher } from './workers/webhook-dispatcher.ts';

export const VERSION: string = JSON.parse(readFileSync(projectPath('package.json'), 'utf8')).version;

export interface Roles {
  api: boolean;
  worker: boolean;
}

export interface Service {
  config: Config;
  store: Store;
  keys: ServiceKeys;
  log: Logger;
  app?: FastifyInstance;
  worker?: CheckWorker;
  dispatcher?: WebhookDispatcher;
  scheduler?: MonitorScheduler;
  metrics: Metrics;
  box: SecretBox;
  /** Base URL the API listens on (when the api role runs). */
  url?: string;
  bootstrap?: BootstrapResult;
  resolvePayer: (id: string) => PayerEntry | undefined;
  directory: PayerDirectory;
  /** The shared directory (reload, import); absent when a test hands the service its payers. */
  directoryService?: DirectoryService;
  stop(): Promise<void>;
}

export interface StartOptions {
  roles?: Roles;
  logDestination?: DestinationStream;
  /** Replace the payer directory (tests). */
  payers?: PayerEntry[];
  /** Connector code per type for PAYERS_FILE entries (tests); default the build's. */
  connectorFactories?: ConnectorFactories;
  /** Where the payers file's `{"env"}` secret references are read; default the environment and `.env`. */
  secretEnv?: NodeJS.ProcessEnv;
  /** Shrinks the webhook retry schedule (tests): 0.001 turns minutes into tenths of seconds. */
  webhookScheduleScale?: number;
  /** Skip creating the demo organization on an empty store. */
  skipBootstrap?: boolean;
  /** Long-running processes: create a new PGlite database in a child process (see `openPglite`). */
  initStoreInChildProcess?: boolean;
}

export async function startService(config: Config, options: StartOptions = {}): Promise<Service> {
  const roles = options.roles ?? { api: true, worker: true };
  const log = createLogger(config.logLevel, options.logDestination);
  // The file first: a bad payers file or a missing credential stops the start before the store opens.
  const loadOptions: LoadOptions = {
    sandbox: createSandboxConnector({ latencyMs: config.sandboxLatencyMs }),
    factories: options.connectorFactories,
    secrets: { env: options.secretEnv ?? withDotEnv(process.env) },
  };
  const file = options.payers ? undefined : readPayersFile(config, undefined, loadOptions.secrets);
  const store = await openStore(config, {
    initInChildProcess: options.initStoreInChildProcess,
    log: log.child({ component: 'store' }),
  });
  if (store.madePrivate) {
    log.warn({ paths: store.madePrivate }, 'data directory was readable by other users; made it private');
  }
  const stops: (() => Promise<void>)[] = [];
  try {
    const { directory, directoryService } = await openDirectory(
      store,
      config,
      options,
      loadOptions,
      log,
      file,
    );
    const master = config.secretKey ?? loadOrCreateMasterSecret(config.dataDir);
    const keys = deriveServiceKeys(master);
    const resolvePayer = (id: string) => directory.resolvePayer(id);
    const metrics = new Metrics(store.db, (id) => {
      const entry = resolvePayer(id);
      return (
        entry && { id: entry.tradingPartnerServiceId, connector: entry.connectorType ?? entry.connector.name }
      );
    });
    metrics.boundPayerLabels({
      maxPayers: config.metricsPayerLabels,
      directorySize: directory.entries.length,
    });
    const stopPayerLabels = metrics.startPayerLabels((err) =>
      log.warn({ err }, 'ranking payers for metric labels failed; keeping the last ranking'),
    );
    stops.push(async () => stopPayerLabels());
    const box = createSecretBox(keys.secretBoxKey);
    const service: Service = {
      config,
      store,
      keys,
      log,
      metrics,
      box,
      resolvePayer,
      directory,
      ...(directoryService ? { directoryService } : {}),
      stop: async () => {},
    };
    const instanceId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    const guard = roles.worker ? await startWorkers(service, instanceId, options, stops) : undefined;
    // Gateway connectors keep keep-alive pools; once no check is in flight they can go.
    stops.push(() => (directoryService ? directoryService.close() : closeConnectors(directory)));
    if (roles.api) await startApi(service, guard, options, stops);
    let stopped: Promise<void> | undefined;
    service.stop = () => {
      stopped ??= (async () => {
        for (const stop of stops) await stop().catch((err) => log.error({ err }, 'error during shutdown'));
        await store.close();
      })();
      return stopped;
    };
    return service;
  } catch (err) {
    for (const stop of stops) await stop().catch(() => {});
    await store.close();
    throw err;
  }
}

/** The payer directory: the one a test hands over, else the shared one built from the database. */
async function openDirectory(
  store: Store,
  config: Config,
  options: StartOptions,
  loadOptions: LoadOptions,
  log: Logger,
  file: PayerDirectoryFile | undefined,
): Promise<{ directory: PayerDirectory; directoryService?: DirectoryService }> {
  if (options.payers) return { directory: createPayerDirectory(options.payers) };
  const directoryService = await DirectoryService.open(
    store.db,
    config,
    loadOptions,
    log.child({ component: 'payer-directory' }),
    file,
  );
  await directoryService.follow();
  return { directory: directoryService.directory, directoryService };
}

/** The check worker, the webhook dispatcher, the monitor scheduler and the retention purge. */
async function startWorkers(
  service: Service,
  instanceId: string,
  options: StartOptions,
  stops: (() => Promise<void>)[],
): Promise<PayerGuard> {
  const { config, store, log, metrics, keys, box, resolvePayer, directory } = service;
  const workerLog = log.child({ component: 'check-worker' });
  const guard = new PayerGuard({
    maxConcurrent: config.payerConcurrency,
    concurrencyOf: (payer) => resolvePayer(payer)?.concurrency,
    failureThreshold: config.payerBreakerFailures,
    openMs: config.payerBreakerOpenMs,
    maxOpenMs: Math.max(config.payerBreakerOpenMs, 600_000),
    onStateChange: (payer, state) => {
      metrics.circuitState(payer, state);
      workerLog.warn({ payer, state }, 'payer circuit breaker changed state');
    },
  });
  // Payer scorecard counts, added to the store every few seconds (src/workers/payer-scorecard.ts).
  const scorecard = new ScorecardRecorder({ db: store.db, log: workerLog });
  scorecard.start();
  // Account limits per connection: in memory on PGlite (one process), in the database on PostgreSQL.
  const limiter = new ConnectionLimiter({
    store: config.databaseUrl ? new DatabaseLimitStore(store.db) : new LocalLimitStore(),
    holder: instanceId,
    holdMs: config.leaseMs,
  });
  const worker = new CheckWorker({
    db: store.db,
    log: workerLog,
    workerId: instanceId,
    guard,
    limiter,
    outageWaitMs: config.payerOutageWaitMs,
    batchRetryMs: config.batchRetryHours * 3_600_000,
    onDeferred: (e) => metrics.deferred(e.tradingPartnerServiceId, e.reason),
    resolvePayer,
    suggestPayers: (id) => directory.closestPayers(id),
    concurrency: config.workerConcurrency,
    pollMs: config.workerPollMs,
    leaseMs: config.leaseMs,
    payerTimeoutMs: config.payerTimeoutMs,
    maxAttempts: config.checkMaxAttempts,
    retryBaseMs: config.checkRetryBaseMs,
    senderId: config.x12SenderId,
    senderQualifier: config.x12SenderQualifier,
    identityKey: keys.patientIdentityKey,
    onFinished: (e) => {
      metrics.finished(e);
      if (!e.connection || !e.benefitSource) return;
      metrics.benefitSource(e.tradingPartnerServiceId, e.connection, e.benefitSource);
      scorecard.checkFinished({
        ...e,
        payerId: e.tradingPartnerServiceId,
        source: e.benefitSource,
        connection: e.connection,
      });
    },
    onPayerCall: (e) => {
      metrics.payerCalled(e.tradingPartnerServiceId, e.outcome, e.durationMs, e.connection);
      scorecard.callMade({ ...e, payerId: e.tradingPartnerServiceId });
    },
  });
  const schedule = createSchedule({ scale: options.webhookScheduleScale ?? 1 });
  const dispatcher = new WebhookDispatcher({
    db: store.db,
    log: log.child({ component: 'webhook-dispatcher' }),
    box,
    dispatcherId: instanceId,
    allowPrivate: config.allowPrivateWebhooks,
    nextDelayMs: (attempt) => schedule.nextAttemptDelayMs(attempt),
    timeoutMs: config.webhookTimeoutMs,
    pollMs: config.workerPollMs,
    userAgent: `EligibilityService-Webhooks/${VERSION}`,
    onAttempt: (e) => metrics.webhookAttempt(e),
  });
  // Turns due monitors into checks; every worker process runs one (row locks make each run happen once).
  const scheduler = new MonitorScheduler({
    db: store.db,
    log: log.child({ component: 'monitor-scheduler' }),
    pollMs: config.monitorPollMs,
    connectionOf: (id) => service.resolvePayer(id)?.connections?.[0]?.name ?? '',
  });
  await worker.start();
  await dispatcher.start();
  await scheduler.start();
  service.worker = worker;
  service.dispatcher = dispatcher;
  service.scheduler = scheduler;
  const stopRetention = startRetention(store.db, log.child({ component: 'retention' }), config.retentionDays);
  stops.push(
    () => scheduler.stop(),
    () => worker.stop(),
    () => scorecard.stop(),
    () => dispatcher.stop(),
    stopRetention,
  );
  return guard;
}

/** The API, the local admin endpoint and the portal, listening; an empty store's first organization. */
async function startApi(
  service: Service,
  guard: PayerGuard | undefined,
  options: StartOptions,
  stops: (() => Promise<void>)[],
): Promise<void> {
  const { config, store, log, metrics, keys, box, directory, directoryService } = service;
  const adminToken = randomBytes(24).toString('base64url');
  let listenUrl = ''; // known once the app listens, before any request is served
  const { app, auth } = await buildApp({
    db: store.db,
    log,
    apiKeyPepper: keys.apiKeyPepper,
    version: VERSION,
    settings: config,
    metrics: {
      submitted: (id) => metrics.submitted(id),
      throttled: (op) => metrics.throttled(op),
      registry: metrics.registry,
    },
    payers: directory,
    payerProblems: () => payerProblems(guard),
    listenUrl: () => listenUrl,
  });
  // The admin endpoint and the portal are encapsulated plugins on top of the API; they load at listen.
  app.register(adminRoutes, {
    token: adminToken,
    keys,
    box,
    allowPrivateWebhooks: config.allowPrivateWebhooks,
    ...(directoryService ? { directory: directoryService } : {}),
  });
  app.register(portalPlugin, {
    prefix: PORTAL_PREFIX,
    db: store.db,
    tokenKey: keys.tokenKey,
    signInThrottleKey: keys.signInThrottleKey,
    apiKeyPepper: keys.apiKeyPepper,
    box,
    ...portalSettings(config),
    payers: directory,
    listenUrl: () => listenUrl,
    operatorOrganizationId: config.operatorOrganizationId,
  });
  const stopAuth = await auth.start();
  // Stop accepting requests first, then let the workers finish (also when listening fails).
  stops.unshift(async () => {
    await app.close();
    await stopAuth();
  });
  await listen(app, config);
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  listenUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  service.url = config.publicUrl ?? listenUrl;
  store.lock?.update({ adminUrl: listenUrl, adminToken });
  service.app = app;
  // Only once the port is ours: a start that cannot listen must not use up the one-time key and link
  // of an empty store (they are printed once, by the caller, after this returns).
  if (!options.skipBootstrap) service.bootstrap = await bootstrapIfEmpty(store.db, keys);
}

/** Listens on HOST:PORT; a port in use is a configuration problem that names the variable to change. */
async function listen(app: FastifyInstance, config: Config): Promise<void> {
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'EADDRINUSE') {
      throw new ConfigError(
        `port ${config.port} on ${config.host} is already in use (is another \`elig serve\` running?). Stop it, or set PORT to a free port (e.g. PORT=${config.port === 8080 ? 8081 : 8080} npm start); PORT=0 picks any free port.`,
      );
    }
    if (code === 'EACCES') {
      throw new ConfigError(
        `not allowed to listen on port ${config.port} on ${config.host}; set PORT to a port above 1023 (or HOST to another address).`,
      );
    }
    throw err;
  }
}

async function closeConnectors(directory: PayerDirectory): Promise<void> {
  await Promise.all(
    directory.entries.map((entry) =>
      'close' in entry.connector && typeof entry.connector.close === 'function'
        ? (entry.connector as GatewayConnector).close()
        : undefined,
    ),
  );
}
