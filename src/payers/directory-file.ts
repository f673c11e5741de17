/**
 * Loads the payer directory at start: the built-in sandbox (unless SANDBOX_ENABLED=0) plus the entries of
 * PAYERS_FILE. A file with problems stops the process with every problem named (entry, field, why), as a
 * bad environment does: a payer that cannot be reached must not surface as SH02s hours later.
 *
 * The file has two parts: `connections` (a clearinghouse account or a payer's own gateway, defined once,
 * with account-wide limits) and `payers`, each naming its connection(s), or, as before connections
 * existed, carrying an inline `connector` (a private connection `payer:<id>`).
 *
 * Two levels, because `elig payer list` only reads: `checkDirectoryDocument` names every problem of a
 * document (schema, unique ids and aliases, connection names, envelope ids, timeouts against LEASE_MS, and
 * with secret sources, every secret reference that does not resolve: all in one report);
 * `buildPayerEntries` builds each connection's connector once, through the factory map, and the entries.
 */
import { readFileSync } from 'node:fs';
import { Compile } from 'typebox/compile';
import { type Config, ConfigError } from '../config.ts';
import type { Connection, PayerConnector, PayerEntry } from './connector.ts';
import { CONNECTOR_FACTORIES, type ConnectorDeps, type ConnectorFactories } from './connectors.ts';
import { type ListedPayer, listedPayer, sandboxPayerEntry } from './directory.ts';
import {
  CORE_DEFAULT_TIMEOUT_MS,
  type ConnectionConfig,
  type ConnectorConfig,
  type PayerDirectoryEntry,
  PayerDirectoryFile,
  type SecretRef,
} from './directory-schema.ts';
import { SANDBOX_PAYER } from './sandbox/index.ts';
import { schemaProblems } from './schema-problems.ts';
import { resolveSecretRef, resolveSecretsIn, type SecretSources, secretRefKey } from './secret-refs.ts';

export type DirectorySettings = Pick<
  Config,
  'payersFile' | 'sandboxEnabled' | 'x12SenderId' | 'payerTimeoutMs' | 'leaseMs'
>;

const compiled = Compile(PayerDirectoryFile);
/** ISA08/GS03 hold 15 characters; a longer payerId needs the connector's `receiverId`. */
const ISA_ID_MAX = 15;
/** A report names this many problems, then how many more there are (a 10,000-payer list can be all wrong). */
const MAX_PROBLEMS = 200;

/** The text of PAYERS_FILE as JSON (undefined when it is not set). Throws ConfigError for unreadable or bad JSON. */
export function readPayersJson(
  settings: Pick<DirectorySettings, 'payersFile'>,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): unknown {
  const path = settings.payersFile;
  if (!path) return undefined;
  let text: string;
  try {
    text = readFile(path);
  } catch (err) {
    throw new ConfigError(`PAYERS_FILE ${path} could not be read (${(err as NodeJS.ErrnoException).code})`);
  }
  return parseDirectoryJson(text, `PAYERS_FILE ${path}`);
}

export function parseDirectoryJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    // V8's message quotes the text around the mistake; only its position is repeated here.
    throw new ConfigError(`${what} is not valid JSON${where(text, err as Error)}`);
  }
}

/**
 * Every problem of a directory document, in one list: schema, ids and aliases, connection names, envelope
 * ids and timeouts, and, given secret sources, each secret reference that does not resolve.
 */
export function checkDirectoryDocument(
  json: unknown,
  settings: DirectorySettings,
  secrets?: SecretSources,
): string[] {
  // The compiled check is fast; the walker, which names every problem in words, runs only when it fails
  // (a 10,000-payer file is checked in tens of milliseconds, not the second the walker would take).
  const valid = compiled.Check(json);
  const problems = valid ? [] : schemaProblems(PayerDirectoryFile, json, '');
  // A keyword the walker does not read can never let a bad file through: the compiled errors then speak.
  if (!valid && !problems.length) {
    for (const e of compiled.Errors(json)) problems.push(`${e.instancePath || '/'} ${e.message}`);
  }
  const doc = (json ?? {}) as Partial<PayerDirectoryFile>;
  const connections =
    doc.connections && typeof doc.connections === 'object' && !Array.isArray(doc.connections)
      ? (doc.connections as Record<string, unknown>)
      : {};
  const bad = new Set(problems.map((p) => /^(payers\[\d+\]|connections\.[^.:\s]+)/.exec(p)?.[1]));
  for (const [name, c] of Object.entries(connections)) {
    if (!bad.has(`connections.${name}`))
      problems.push(...connectorProblems(c as ConnectionConfig, undefined, `connections.${name}`));
    if (secrets) problems.push(...resolveSecretsIn(c, `connections.${name}`, secrets).problems);
  }
  const payers = Array.isArray(doc.payers) ? doc.payers : [];
  problems.push(...keyProblems(payers, settings.sandboxEnabled));
  for (const [i, item] of payers.entries()) {
    const at = `payers[${i}]`;
    const entry = (item ?? {}) as PayerDirectoryEntry;
    if (secrets && entry.connector)
      problems.push(...resolveSecretsIn(entry.connector, `${at}.connector`, secrets).problems);
    if (bad.has(at)) continue;
    problems.push(...entryProblems(entry, at, connections as Record<string, ConnectionConfig>, settings));
  }
  return [...new Set(problems)];
}

/** A ConfigError naming the problems (at most MAX_PROBLEMS, then how many more). */
export function directoryError(what: string, problems: readonly string[]): ConfigError {
  const shown = problems.slice(0, MAX_PROBLEMS);
  const more = problems.length > shown.length ? `\n  … and ${problems.length - shown.length} more` : '';
  return new ConfigError(`Invalid ${what}:\n  - ${shown.join('\n  - ')}${more}`);
}

/** The validated document of PAYERS_FILE (no payers when it is not set). Throws ConfigError naming every problem. */
export function readPayersFile(
  settings: DirectorySettings,
  readFile?: (path: string) => string,
  secrets?: SecretSources,
): PayerDirectoryFile {
  const json = readPayersJson(settings, readFile);
  if (json === undefined) return { payers: [] };
  const problems = checkDirectoryDocument(json, settings, secrets);
  if (problems.length) throw directoryError(`payers file ${settings.payersFile}`, problems);
  return json as PayerDirectoryFile;
}

function where(text: string, err: Error): string {
  const at = /position (\d+)/.exec(err.message);
  if (!at) return '';
  const before = text.slice(0, Number(at[1])).split('\n');
  return ` (line ${before.length}, column ${before.at(-1)!.length + 1})`;
}

/** Ids and aliases name one payer each, across the whole file; SANDBOX is taken while the sandbox is on. */
function keyProblems(payers: unknown[], sandboxEnabled: boolean): string[] {
  const problems: string[] = [];
  const holder = new Map<string, number>();
  for (const [i, entry] of payers.entries()) {
    const { id, aliases } = (entry ?? {}) as { id?: unknown; aliases?: unknown };
    const keys: [string, unknown][] = [
      [`payers[${i}].id`, id],
      ...(Array.isArray(aliases) ? aliases : []).map((a, n): [string, unknown] => [
        `payers[${i}].aliases[${n}]`,
        a,
      ]),
    ];
    for (const [path, key] of keys) {
      // Malformed keys are already named by the schema check.
      if (typeof key !== 'string') continue;
      const first = holder.get(key);
      if (sandboxEnabled && key === SANDBOX_PAYER.tradingPartnerServiceId) {
        problems.push(
          `${path} "${key}" is the built-in sandbox payer's id (set SANDBOX_ENABLED=0 to reuse it)`,
        );
      } else if (first === i) {
        problems.push(`${path} "${key}" is listed twice for payers[${i}]`);
      } else if (first !== undefined) {
        problems.push(`${path} "${key}" is also the id or alias of payers[${first}]`);
      } else {
        holder.set(key, i);
      }
    }
  }
  return problems;
}

function entryProblems(
  entry: PayerDirectoryEntry,
  at: string,
  connections: Record<string, ConnectionConfig>,
  settings: DirectorySettings,
): string[] {
  const problems: string[] = [];
  const names = connectionNames(entry);
  if (entry.connector && names.length) {
    problems.push(`${at} has both connection and connector; name a connection or keep the inline connector`);
  } else if (!entry.connector && !names.length) {
    problems.push(`${at} needs a connection (a name from connections) or a connector`);
  }
  for (const [n, name] of names.entries()) {
    const path = Array.isArray(entry.connection) ? `${at}.connection[${n}]` : `${at}.connection`;
    if (!Object.hasOwn(connections, name)) {
      const known = Object.keys(connections);
      problems.push(
        `${path} "${name}" is not a connection of this file${known.length ? ` (known: ${known.slice(0, 10).join(', ')})` : ' (it has no connections)'}`,
      );
    } else if (names.indexOf(name) !== n) {
      problems.push(`${path} "${name}" is listed twice`);
    }
  }
  if (entry.connector) problems.push(...connectorProblems(entry.connector, entry, `${at}.connector`));
  for (const name of names) {
    const c = Object.hasOwn(connections, name) ? connections[name] : undefined;
    if (c && !c.receiverId && entry.payerId.length > ISA_ID_MAX) {
      problems.push(
        `${at}.payerId is longer than ${ISA_ID_MAX} characters, too long for the ISA/GS receiver: set receiverId on connection ${name}`,
      );
    }
  }
  const timeouts = [
    entry.timeoutMs,
    ...names.map((n) => (Object.hasOwn(connections, n) ? connections[n]?.timeoutMs : undefined)),
  ];
  for (const timeoutMs of timeouts.length > 1
    ? timeouts.filter((t) => t !== undefined)
    : [timeoutOf(entry, entry.connector, settings)]) {
    if (timeoutMs !== undefined && timeoutMs >= settings.leaseMs) {
      problems.push(
        `${at}.timeoutMs (${timeoutMs}) must be less than LEASE_MS (${settings.leaseMs}), or a check could be taken over mid-call`,
      );
    }
  }
  return problems;
}

/** URL problems of a connector or connection, and the receiver id an inline connector needs. */
function connectorProblems(c: ConnectorConfig, entry: PayerDirectoryEntry | undefined, at: string): string[] {
  const problems = urlProblems(c.url, `${at}.url`);
  if (c.type === 'x12-json' && c.auth.type === 'oauth2-client-credentials')
    problems.push(...urlProblems(c.auth.tokenUrl, `${at}.auth.tokenUrl`));
  if (entry && !c.receiverId && entry.payerId.length > ISA_ID_MAX) {
    problems.push(
      `${at.replace(/\.connector$/, '')}.payerId is longer than ${ISA_ID_MAX} characters, too long for the ISA/GS receiver: set connector.receiverId`,
    );
  }
  return problems;
}

/** The connection names of an entry, in failover order. */
export function connectionNames(entry: Pick<PayerDirectoryEntry, 'connection'>): string[] {
  const c = entry.connection;
  return c === undefined ? [] : Array.isArray(c) ? [...c] : [c];
}

/** Credentials belong in secret references, never in a URL that ends up in a file under version control. */
function urlProblems(url: string, path: string): string[] {
  if (!URL.canParse(url)) return [`${path} is not a valid URL`];
  const u = new URL(url);
  if (u.username || u.password)
    return [`${path} must not carry credentials (use the connector's secret references)`];
  return [];
}

/**
 * The entry's own budget; else its connection's; else CORE's 20 s real-time expectation caps
 * PAYER_TIMEOUT_MS for CORE gateways.
 */
function timeoutOf(
  entry: Pick<PayerDirectoryEntry, 'timeoutMs'>,
  c: ConnectionConfig | undefined,
  settings: DirectorySettings,
): number {
  if (entry.timeoutMs !== undefined) return entry.timeoutMs;
  if (c?.timeoutMs !== undefined) return c.timeoutMs;
  return c && isCore(c)
    ? Math.min(settings.payerTimeoutMs, CORE_DEFAULT_TIMEOUT_MS)
    : settings.payerTimeoutMs;
}

const isCore = (c: ConnectorConfig) => c.type === 'caqh-core-soap' || c.type === 'caqh-core-mime';

/** What listings show, from a document alone (no secrets resolved, no connector built). */
export function listDocumentPayers(doc: PayerDirectoryFile, sandboxEnabled: boolean): ListedPayer[] {
  const sandbox: ListedPayer[] = sandboxEnabled
    ? [listedPayer(sandboxPayerEntry({ name: 'sandbox', send: async () => '' }))]
    : [];
  return [
    ...sandbox,
    ...doc.payers.map((e) => {
      const first = connectionNames(e)[0];
      const type = e.connector?.type ?? (first ? doc.connections?.[first]?.type : undefined) ?? 'x12-json';
      return { id: e.id, name: e.name, aliases: [...(e.aliases ?? [])], connectorType: type };
    }),
  ];
}

/** What listings show, from the config and the file alone. */
export function listConfiguredPayers(settings: DirectorySettings): ListedPayer[] {
  return listDocumentPayers(readPayersFile(settings), settings.sandboxEnabled);
}

export interface LoadOptions {
  /** The sandbox connector (used when SANDBOX_ENABLED). */
  sandbox: PayerConnector;
  /** Connector code per type; default the build's (src/payers/connectors.ts). */
  factories?: ConnectorFactories;
  /** Where `{"env"}` and `{"file"}` references are read. */
  secrets: SecretSources;
  readFile?: (path: string) => string;
  /** Connections built by an earlier load, reused when their config is unchanged (keep-alive pools, tokens). */
  previous?: ReadonlyMap<string, BuiltConnection>;
}

/** A connection with the config it was built from (a reload rebuilds only what changed). */
export interface BuiltConnection {
  connection: Connection;
  /** The config as JSON, with the X12 defaults it was built with. */
  fingerprint: string;
}

/** The whole directory of PAYERS_FILE, ready to call: sandbox first (when enabled), then the payers in order. */
export function loadPayerEntries(settings: DirectorySettings, options: LoadOptions): PayerEntry[] {
  const json = readPayersJson(settings, options.readFile) ?? { payers: [] };
  const problems = checkDirectoryDocument(json, settings, options.secrets);
  if (problems.length) throw directoryError(`payers file ${settings.payersFile}`, problems);
  return buildPayerEntries(json as PayerDirectoryFile, settings, options).entries;
}

/**
 * Entries of a checked document: each connection's connector is built once and shared by its payers; an
 * inline connector becomes the private connection `payer:<id>`. Throws ConfigError naming every problem.
 */
export function buildPayerEntries(
  doc: PayerDirectoryFile,
  settings: DirectorySettings,
  options: LoadOptions,
): { entries: PayerEntry[]; connections: Map<string, BuiltConnection> } {
  const factories = options.factories ?? CONNECTOR_FACTORIES;
  const problems: string[] = [];
  const built = new Map<string, BuiltConnection>();
  const connect = (name: string, c: ConnectionConfig, receiverId: string, at: string) => {
    const fingerprint = JSON.stringify([c, settings.x12SenderId, receiverId]);
    const earlier = options.previous?.get(name);
    if (earlier?.fingerprint === fingerprint) return earlier;
    const { secrets, problems: missing } = resolveSecretsIn(c, at, options.secrets);
    problems.push(...missing);
    if (missing.length) return undefined;
    const deps: ConnectorDeps = {
      // Every reference of the config was resolved above; one the factory builds itself is resolved here.
      secret: (ref: SecretRef) => secrets.get(secretRefKey(ref)) ?? resolveOrThrow(ref, options.secrets),
      senderId: c.senderId ?? settings.x12SenderId,
      receiverId,
    };
    try {
      const connector = build(factories, c, deps);
      const connection: Connection = {
        name,
        type: c.type,
        connector,
        ...(c.limits ? { limits: c.limits } : {}),
        ...(c.stcStrategy ? { stcStrategy: c.stcStrategy } : {}),
        ...(c.timeoutMs ? { timeoutMs: c.timeoutMs } : {}),
        ...(envelopeOf(c) ? { envelope: envelopeOf(c) } : {}),
      };
      return { connection, fingerprint };
    } catch (err) {
      problems.push(`${at}: ${(err as Error).message}`);
      return undefined;
    }
  };
  // Named connections: their ISA/GS receiver is the connection's `receiverId`, else the clearinghouse reads
  // the payer from NM109; the envelope receiver is then the payer id of each 270 (see envelopeOf).
  for (const [name, c] of Object.entries(doc.connections ?? {})) {
    const b = connect(name, c, c.receiverId ?? '', `connections.${name}`);
    if (b) built.set(name, b);
  }
  const entries: PayerEntry[] = settings.sandboxEnabled ? [sandboxPayerEntry(options.sandbox)] : [];
  for (const [i, e] of doc.payers.entries()) {
    const names = connectionNames(e);
    let connections: Connection[];
    if (e.connector) {
      const name = `payer:${e.id}`;
      const b = connect(name, e.connector, e.connector.receiverId ?? e.payerId, `payers[${i}].connector`);
      if (!b) continue;
      built.set(name, b);
      connections = [b.connection];
    } else {
      connections = names.flatMap((n) => {
        const c = built.get(n)?.connection;
        return c ? [c] : [];
      });
      if (connections.length !== names.length) continue; // the connection's own problem is reported
    }
    const first = connections[0]!;
    const firstConfig = e.connector ?? doc.connections?.[names[0]!];
    entries.push({
      tradingPartnerServiceId: e.id,
      payerName: e.name,
      payerId: e.payerId,
      connector: first.connector,
      connections,
      aliases: e.aliases ?? [],
      connectorType: first.type,
      concurrency: e.concurrency,
      timeoutMs: timeoutOf(e, firstConfig, settings),
      envelope: envelopeOf(firstConfig!),
      ...(e.keepMemberIdSeparators ? { keepMemberIdSeparators: true } : {}),
      ...(e.memberIdFormat ? { memberIdFormat: e.memberIdFormat } : {}),
      ...(e.stcStrategy ? { stcStrategy: e.stcStrategy } : {}),
      ...(e.eligibility === false ? { eligibility: false } : {}),
      ...(e.enrollment ? { enrollment: e.enrollment } : {}),
      ...(e.states?.length ? { states: e.states } : {}),
      ...(e.demographicSearch ? { demographicSearch: true } : {}),
    });
  }
  if (problems.length) throw directoryError(`payers file ${settings.payersFile}`, problems);
  return { entries, connections: built };
}

function build(factories: ConnectorFactories, c: ConnectorConfig, deps: ConnectorDeps): PayerConnector {
  switch (c.type) {
    case 'caqh-core-soap':
      return factories['caqh-core-soap'](c, deps);
    case 'caqh-core-mime':
      return factories['caqh-core-mime'](c, deps);
    case 'x12-json':
      return factories['x12-json'](c, deps);
  }
}

/** Reported beside the entry's path by the loop above (the message names the reference, not a value). */
function resolveOrThrow(ref: SecretRef, sources: SecretSources): string {
  const r = resolveSecretRef(ref, sources);
  if (!r.ok) throw new ConfigError(r.problem);
  return r.value;
}

function envelopeOf(c: ConnectorConfig): PayerEntry['envelope'] {
  const ids = {
    senderId: c.senderId,
    senderQualifier: c.senderQualifier,
    receiverId: c.receiverId,
    receiverQualifier: c.receiverQualifier,
    usageIndicator: c.usageIndicator,
  };
  const set = Object.entries(ids).filter(([, v]) => v !== undefined);
  return set.length ? Object.fromEntries(set) : undefined;
}
