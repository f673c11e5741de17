/**
 * The payer directory every process agrees on. PAYERS_FILE and imported clearinghouse lists are sources;
 * the database holds their last accepted documents (table payer_directory), and each process builds its
 * directory from there: connections (built once, reused across rebuilds while their config is unchanged)
 * and payers.
 *
 * - At start, a process with PAYERS_FILE checks the whole file (schema, ids, connections, every secret
 *   reference) and stores it if it changed; a process without one uses what the database holds.
 * - `reload()` (`elig payer reload`, SIGHUP) re-reads the file: every problem named at once, nothing
 *   changed when there is one; otherwise stored, and every process told (NOTIFY elig_payer_directory).
 * - `importList()` (`elig payer import`) stores a clearinghouse list for one connection, replacing that
 *   connection's earlier import. Payers of the file win over imported ones with the same id.
 * A process that cannot build a changed directory (a secret missing in its environment) keeps the one it
 * has and logs why: a check is never sent through a half-built directory.
 */
import type { Logger } from 'pino';
import { ConfigError } from '../config.ts';
import type { Connection } from '../payers/connector.ts';
import { createPayerDirectory } from '../payers/directory.ts';
import {
  type BuiltConnection,
  buildPayerEntries,
  checkDirectoryDocument,
  type DirectorySettings,
  directoryError,
  type LoadOptions,
  readPayersFile,
} from '../payers/directory-file.ts';
import type { PayerDirectoryEntry, PayerDirectoryFile } from '../payers/directory-schema.ts';
import { LiveDirectory } from '../payers/live-directory.ts';
import { PAYER_DIRECTORY_CHANNEL } from '../store/channels.ts';
import type { Db } from '../store/db.ts';
import { readDirectorySources, writeDirectorySource } from '../store/payer-directory.ts';

export const FILE_SOURCE = 'file';
export const importSource = (connection: string) => `import:${connection}`;

export interface DirectorySummary {
  payers: number;
  connections: number;
  /** Imported payers left out because PAYERS_FILE (or an earlier import) already lists their id. */
  shadowed: number;
  changed: boolean;
}

export class DirectoryService {
  readonly directory: LiveDirectory;
  private built = new Map<string, BuiltConnection>();
  private fileDocument: PayerDirectoryFile;
  private running: Promise<unknown> = Promise.resolve();
  private unlisten?: () => Promise<void>;
  private lastSummary: DirectorySummary = { payers: 0, connections: 0, shadowed: 0, changed: false };

  private constructor(
    private readonly db: Db,
    private readonly settings: DirectorySettings,
    private readonly options: LoadOptions,
    private readonly log: Logger,
    fileDocument: PayerDirectoryFile,
  ) {
    this.fileDocument = fileDocument;
    this.directory = new LiveDirectory(createPayerDirectory([]));
  }

  /**
   * Stores the (already checked) file when it changed, then builds the directory from the database.
   * Throws ConfigError when the stored directory cannot be built here.
   */
  static async open(
    db: Db,
    settings: DirectorySettings,
    options: LoadOptions,
    log: Logger,
    file: PayerDirectoryFile | undefined,
  ): Promise<DirectoryService> {
    const service = new DirectoryService(db, settings, options, log, file ?? { payers: [] });
    if (file && settings.payersFile) await writeDirectorySource(db, FILE_SOURCE, file);
    await service.rebuild(true);
    return service;
  }

  get summary(): DirectorySummary {
    return this.lastSummary;
  }

  /** Rebuilds when another process changed the directory. */
  async follow(): Promise<void> {
    this.unlisten = await this.db.listen(PAYER_DIRECTORY_CHANNEL, () => {
      void this.serial(() => this.rebuild(false)).catch(() => {});
    });
  }

  async close(): Promise<void> {
    await this.unlisten?.().catch(() => {});
    await this.running.catch(() => {});
    await closeConnections(this.built.values());
  }

  /** Re-reads PAYERS_FILE: every problem at once (nothing changes), else stored and rebuilt everywhere. */
  reload(): Promise<DirectorySummary> {
    return this.serial(async () => {
      if (!this.settings.payersFile)
        throw new ConfigError('PAYERS_FILE is not set: there is no file to reload');
      const file = readPayersFile(this.settings, this.options.readFile, this.options.secrets);
      const changed = await writeDirectorySource(this.db, FILE_SOURCE, file);
      this.fileDocument = file;
      await this.rebuild(true);
      return { ...this.lastSummary, changed };
    });
  }

  /** Stores a clearinghouse list for `connection` (replacing its earlier import) and rebuilds. */
  importList(connection: string, payers: PayerDirectoryEntry[]): Promise<DirectorySummary> {
    return this.serial(async () => {
      const connections = this.fileDocument.connections ?? {};
      if (!Object.hasOwn(connections, connection)) {
        const known = Object.keys(connections);
        throw new ConfigError(
          `connection "${connection}" is not defined in PAYERS_FILE${known.length ? ` (defined: ${known.join(', ')})` : ' (it defines no connections)'}`,
        );
      }
      const document: PayerDirectoryFile = { payers: payers.map((p) => ({ ...p, connection })) };
      // Checked against the file's connections, with the sandbox's id reserved as in the file.
      const problems = checkDirectoryDocument({ connections, payers: document.payers }, this.settings);
      if (problems.length) throw directoryError(`payer list for ${connection}`, problems);
      const changed = await writeDirectorySource(this.db, importSource(connection), document);
      await this.rebuild(true);
      return { ...this.lastSummary, changed };
    });
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.running.then(fn, fn);
    this.running = next.catch(() => {});
    return next;
  }

  /** The directory from the stored sources; `strict`: a problem throws, else it is logged and the old one kept. */
  private async rebuild(strict: boolean): Promise<void> {
    try {
      const sources = await readDirectorySources(this.db);
      const { document, file, shadowed } = effectiveDocument(sources, this.fileDocument);
      const problems = checkDirectoryDocument(document, this.settings, this.options.secrets);
      if (problems.length) throw directoryError('payer directory', problems);
      const { entries, connections } = buildPayerEntries(document, this.settings, {
        ...this.options,
        previous: this.built,
      });
      const replaced = [...this.built].filter(([name, b]) => connections.get(name) !== b).map(([, b]) => b);
      const next = createPayerDirectory(entries);
      // The search index is built on first use; build it now, off the path of the first request.
      setImmediate(() => next.searchPayers('', 1));
      this.directory.swap(next);
      this.built = connections;
      this.fileDocument = file;
      this.lastSummary = {
        payers: entries.length,
        connections: new Set(entries.flatMap((e) => (e.connections ?? []).map((c) => c.name))).size,
        shadowed,
        changed: false,
      };
      // Connectors no longer used drain after their last call (keep-alive pools).
      setTimeout(() => void closeConnections(replaced), 30_000).unref();
      this.log.info(
        { payers: entries.length, connections: connections.size, shadowed },
        'payer directory loaded',
      );
    } catch (err) {
      if (strict) throw err;
      // The message names fields and references, never secret values (src/payers/secret-refs.ts).
      this.log.error(
        { err: (err as Error).message },
        'payer directory changed but could not be built here; keeping the previous one',
      );
    }
  }
}

/**
 * One document from the sources: the file's connections and payers (the stored file, the latest accepted
 * by any process; this process's own before anything is stored), then each import's payers whose ids and
 * aliases are not taken yet.
 */
export function effectiveDocument(
  sources: readonly { source: string; document: unknown }[],
  localFile: PayerDirectoryFile,
): { document: PayerDirectoryFile; file: PayerDirectoryFile; shadowed: number } {
  const stored = sources.find((s) => s.source === FILE_SOURCE)?.document as PayerDirectoryFile | undefined;
  const file = stored ?? localFile;
  const taken = new Set(file.payers.flatMap((p) => [p.id, ...(p.aliases ?? [])]));
  const payers = [...file.payers];
  let shadowed = 0;
  for (const s of sources) {
    if (!s.source.startsWith('import:')) continue;
    const connection = s.source.slice('import:'.length);
    // An import whose connection the file no longer defines is not used (`elig payer import` again, or remove it).
    if (!Object.hasOwn(file.connections ?? {}, connection)) continue;
    for (const p of (s.document as PayerDirectoryFile).payers ?? []) {
      const keys = [p.id, ...(p.aliases ?? [])];
      if (keys.some((k) => taken.has(k))) {
        shadowed++;
        continue;
      }
      for (const k of keys) taken.add(k);
      payers.push(p);
    }
  }
  const document = { ...(file.connections ? { connections: file.connections } : {}), payers };
  return { document, file, shadowed };
}

async function closeConnections(built: Iterable<BuiltConnection>): Promise<void> {
  await Promise.all(
    [...built].map(({ connection }) => {
      const c = connection.connector as Connection['connector'] & { close?: () => Promise<void> };
      return typeof c.close === 'function' ? c.close().catch(() => {}) : undefined;
    }),
  );
}
