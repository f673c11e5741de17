/**
 * Loads the payer directory at start: the built-in sandbox (unless SANDBOX_ENABLED=0) plus the entries of
 * PAYERS_FILE. A file with problems stops the process with every problem named (entry, field, why), as a
 * bad environment does: a payer that cannot be reached must not surface as SH02s hours later.
 *
 * Two levels, because `elig payer list` only reads: `readPayersFile` validates the file (schema, unique
 * ids and aliases, envelope ids, timeouts against LEASE_MS); `loadPayerEntries` also resolves the secret
 * references and builds each connector through the factory map.
 */
import { readFileSync } from 'node:fs';
import { Compile } from 'typebox/compile';
import { type Config, ConfigError } from '../config.ts';
import type { PayerConnector, PayerEntry } from './connector.ts';
import { CONNECTOR_FACTORIES, type ConnectorDeps, type ConnectorFactories } from './connectors.ts';
import { type ListedPayer, listedPayer, sandboxPayerEntry } from './directory.ts';
import {
  CORE_DEFAULT_TIMEOUT_MS,
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

/** The validated entries of PAYERS_FILE (none when it is not set). Throws ConfigError naming every problem. */
export function readPayersFile(
  settings: DirectorySettings,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): PayerDirectoryEntry[] {
  const path = settings.payersFile;
  if (!path) return [];
  let text: string;
  try {
    text = readFile(path);
  } catch (err) {
    throw new ConfigError(`PAYERS_FILE ${path} could not be read (${(err as NodeJS.ErrnoException).code})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    // V8's message quotes the text around the mistake; only its position is repeated here.
    throw new ConfigError(`PAYERS_FILE ${path} is not valid JSON${where(text, err as Error)}`);
  }
  const problems = schemaProblems(PayerDirectoryFile, json, '');
  if (!problems.length && !compiled.Check(json)) {
    for (const e of compiled.Errors(json)) problems.push(`${e.instancePath || '/'} ${e.message}`);
  }
  const payers = (json as Partial<PayerDirectoryFile>)?.payers;
  if (Array.isArray(payers)) {
    // Cross-entry and semantic checks run on the entries that are well formed, so one pass names it all.
    const wellFormed = payers.filter(
      (_, i) => !problems.some((p) => p.startsWith(`payers[${i}].`) || p.startsWith(`payers[${i}] `)),
    );
    problems.push(
      ...keyProblems(payers, settings.sandboxEnabled),
      ...entryProblems(payers, wellFormed, settings),
    );
  }
  if (problems.length) {
    throw new ConfigError(`Invalid payers file ${path}:\n  - ${[...new Set(problems)].join('\n  - ')}`);
  }
  return (json as PayerDirectoryFile).payers;
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

function entryProblems(payers: unknown[], wellFormed: unknown[], settings: DirectorySettings): string[] {
  const problems: string[] = [];
  for (const [i, item] of payers.entries()) {
    if (!wellFormed.includes(item)) continue;
    const entry = item as PayerDirectoryEntry;
    const c = entry.connector;
    problems.push(...urlProblems(c.url, `payers[${i}].connector.url`));
    if (c.type === 'x12-json' && c.auth.type === 'oauth2-client-credentials')
      problems.push(...urlProblems(c.auth.tokenUrl, `payers[${i}].connector.auth.tokenUrl`));
    if (!c.receiverId && entry.payerId.length > ISA_ID_MAX) {
      problems.push(
        `payers[${i}].payerId is longer than ${ISA_ID_MAX} characters, too long for the ISA/GS receiver: set connector.receiverId`,
      );
    }
    const timeoutMs = timeoutOf(entry, settings);
    if (timeoutMs >= settings.leaseMs) {
      problems.push(
        `payers[${i}].timeoutMs (${timeoutMs}) must be less than LEASE_MS (${settings.leaseMs}), or a check could be taken over mid-call`,
      );
    }
  }
  return problems;
}

/** Credentials belong in secret references, never in a URL that ends up in a file under version control. */
function urlProblems(url: string, path: string): string[] {
  if (!URL.canParse(url)) return [`${path} is not a valid URL`];
  const u = new URL(url);
  if (u.username || u.password)
    return [`${path} must not carry credentials (use the connector's secret references)`];
  return [];
}

/** The entry's own budget; else CORE's 20 s real-time expectation caps PAYER_TIMEOUT_MS for CORE gateways. */
function timeoutOf(entry: PayerDirectoryEntry, settings: DirectorySettings): number {
  if (entry.timeoutMs !== undefined) return entry.timeoutMs;
  return isCore(entry.connector)
    ? Math.min(settings.payerTimeoutMs, CORE_DEFAULT_TIMEOUT_MS)
    : settings.payerTimeoutMs;
}

const isCore = (c: ConnectorConfig) => c.type === 'caqh-core-soap' || c.type === 'caqh-core-mime';

/** What listings show, from the config and the file alone (no secrets resolved, no connector built). */
export function listConfiguredPayers(settings: DirectorySettings): ListedPayer[] {
  const sandbox: ListedPayer[] = settings.sandboxEnabled
    ? [listedPayer(sandboxPayerEntry({ name: 'sandbox', send: async () => '' }))]
    : [];
  return [
    ...sandbox,
    ...readPayersFile(settings).map((e) => ({
      id: e.id,
      name: e.name,
      aliases: [...(e.aliases ?? [])],
      connectorType: e.connector.type,
    })),
  ];
}

export interface LoadOptions {
  /** The sandbox connector (used when SANDBOX_ENABLED). */
  sandbox: PayerConnector;
  /** Connector code per type; default the build's (src/payers/connectors.ts). */
  factories?: ConnectorFactories;
  /** Where `{"env"}` and `{"file"}` references are read. */
  secrets: SecretSources;
  readFile?: (path: string) => string;
}

/** The whole directory, ready to call: sandbox first (when enabled), then the file's payers in order. */
export function loadPayerEntries(settings: DirectorySettings, options: LoadOptions): PayerEntry[] {
  const file = readPayersFile(settings, options.readFile);
  const factories = options.factories ?? CONNECTOR_FACTORIES;
  const problems: string[] = [];
  const entries: PayerEntry[] = settings.sandboxEnabled ? [sandboxPayerEntry(options.sandbox)] : [];
  for (const [i, e] of file.entries()) {
    const at = `payers[${i}].connector`;
    const { secrets, problems: missing } = resolveSecretsIn(e.connector, at, options.secrets);
    problems.push(...missing);
    if (missing.length) continue;
    const c = e.connector;
    const deps: ConnectorDeps = {
      // Every reference of the config was resolved above; one the factory builds itself is resolved here.
      secret: (ref: SecretRef) => secrets.get(secretRefKey(ref)) ?? resolveOrThrow(ref, options.secrets),
      senderId: c.senderId ?? settings.x12SenderId,
      receiverId: c.receiverId ?? e.payerId,
    };
    let connector: PayerConnector;
    try {
      connector = build(factories, c, deps);
    } catch (err) {
      problems.push(`${at}: ${(err as Error).message}`);
      continue;
    }
    entries.push({
      tradingPartnerServiceId: e.id,
      payerName: e.name,
      payerId: e.payerId,
      connector,
      aliases: e.aliases ?? [],
      connectorType: c.type,
      concurrency: e.concurrency,
      timeoutMs: timeoutOf(e, settings),
      envelope: envelopeOf(c),
      ...(e.keepMemberIdSeparators ? { keepMemberIdSeparators: true } : {}),
    });
  }
  if (problems.length) {
    throw new ConfigError(
      `Invalid payers file ${settings.payersFile}:\n  - ${[...new Set(problems)].join('\n  - ')}`,
    );
  }
  return entries;
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
