/**
 * `elig payer list | reload | import`. `list [--q TEXT] [--limit N] [--json]`: the payer directory as GET
 * /api/payers shows it (ids, names, aliases, connector types; never URLs or credentials): the shared
 * directory the database holds (PAYERS_FILE and every imported list), read through the running server
 * that holds a PGlite data directory, else from the store; where there is no store yet, PAYERS_FILE alone.
 * No secrets are resolved. `--q` ranks as the API does. An invalid file is reported exactly as a start
 * would report it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { pino } from 'pino';
import { directoryOp } from '../../api/routes/admin.ts';
import { type Config, ConfigError, withDotEnv } from '../../config.ts';
import { DirectoryService, type DirectorySummary, effectiveDocument } from '../../directory/service.ts';
import { findPayers, type ListedPayer } from '../../payers/directory.ts';
import { listDocumentPayers, readPayersFile } from '../../payers/directory-file.ts';
import { describeProblems, importPayerList, type PayerListFormat } from '../../payers/import.ts';
import { createSandboxConnector } from '../../payers/sandbox/index.ts';
import { readLock } from '../../store/datadir-lock.ts';
import { openStore } from '../../store/open.ts';
import { readDirectorySources } from '../../store/payer-directory.ts';
import { CliError, type CommandSpec, UsageError } from '../args.ts';
import { adminCall } from '../backend.ts';

export const PAYER_LIST_COMMAND: CommandSpec = {
  name: 'payer list',
  summary: 'the payer directory (sandbox, PAYERS_FILE and imported lists); no server needed',
  options: {
    q: {
      type: 'string',
      value: 'TEXT',
      description: 'only payers matching TEXT, best first (as GET /api/payers?q=)',
    },
    limit: { type: 'string', value: 'N', description: 'at most N payers' },
    json: { type: 'boolean', description: 'print JSON (`{ "payers": [...] }`) instead of a table' },
  },
  async run({ values, io, config }) {
    const limit = values.limit === undefined ? undefined : Number(values.limit);
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1)) {
      throw new UsageError('--limit must be a whole number of at least 1', PAYER_LIST_COMMAND);
    }
    const q = typeof values.q === 'string' ? values.q : undefined;
    return payerList(config(), { json: values.json === true, q, limit }, io);
  },
};

/**
 * The payers the service lists: the shared directory as the database holds it (the stored PAYERS_FILE and
 * each imported list, as `effectiveDocument` merges them), through the running server when one holds the
 * PGlite data directory. PAYERS_FILE alone where no store exists yet; when the store cannot be read, the
 * file alone with a `note` saying imported payers are missing.
 */
export async function listedPayers(config: Config): Promise<{ payers: ListedPayer[]; note?: string }> {
  const file = readPayersFile(config); // checked as a start checks it, secrets not resolved
  const fromFile = listDocumentPayers(file, config.sandboxEnabled);
  if (!config.databaseUrl && !existsSync(config.dataDir)) return { payers: fromFile };
  try {
    if (!config.databaseUrl && readLock(config.dataDir)) {
      return { payers: (await adminCall(config, 'payer.list', {})) as ListedPayer[] };
    }
    const store = await openStore(config);
    try {
      const { document } = effectiveDocument(await readDirectorySources(store.db), file);
      return { payers: listDocumentPayers(document, config.sandboxEnabled) };
    } finally {
      await store.close();
    }
  } catch (err) {
    const why = err instanceof CliError ? err.message : (err as Error).name;
    return {
      payers: fromFile,
      note: `The shared payer directory could not be read (${why}): PAYERS_FILE alone, without imported payers.`,
    };
  }
}

export async function payerList(
  config: Config,
  options: { json?: boolean; q?: string; limit?: number },
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Promise<number> {
  const listed = await listedPayers(config);
  if (listed.note) io.stderr.write(`${listed.note}\n`);
  const payers = findPayers(listed.payers, options.q, options.limit);
  if (options.json) {
    io.stdout.write(`${JSON.stringify({ payers }, null, 2)}\n`);
    return 0;
  }
  const rows = [
    ['ID', 'NAME', 'CONNECTOR', 'ALIASES'],
    ...payers.map((p) => [p.id, p.name, p.connectorType, p.aliases.join(', ')]),
  ];
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => r[col]!.length)));
  for (const row of rows) {
    io.stdout.write(
      `${row
        .map((cell, col) => cell.padEnd(widths[col]!))
        .join('  ')
        .trimEnd()}\n`,
    );
  }
  return 0;
}

export const PAYER_RELOAD_COMMAND: CommandSpec = {
  name: 'payer reload',
  summary: 're-read PAYERS_FILE into the shared directory (every process follows; no restart)',
  options: {},
  async run({ io, config }) {
    const summary = (await directoryCall(config(), 'payer.reload', {})) as DirectorySummary;
    io.stdout.write(
      `${summary.changed ? 'Reloaded' : 'Unchanged'}: ${summary.payers} payers, ${summary.connections} connections.\n`,
    );
    return 0;
  },
};

/**
 * A directory operation where it can run: through the running server's admin endpoint when one holds the
 * PGlite data directory, else directly on the store (PostgreSQL: every running process follows by NOTIFY).
 */
export async function directoryCall(
  config: Config,
  op: 'payer.reload' | 'payer.import',
  args: Record<string, unknown>,
): Promise<unknown> {
  const lock = config.databaseUrl ? undefined : readLock(config.dataDir);
  if (lock) return adminCall(config, op, args);
  const secrets = { env: withDotEnv(process.env) };
  const file = readPayersFile(config, undefined, secrets);
  const store = await openStore(config);
  try {
    const loadOptions = { sandbox: createSandboxConnector({ latencyMs: 0 }), secrets };
    const directory = await DirectoryService.open(
      store.db,
      config,
      loadOptions,
      pino({ level: 'silent' }),
      file,
    );
    try {
      return await directoryOp(directory, op, args);
    } finally {
      await directory.close();
    }
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message);
    throw err;
  } finally {
    await store.close();
  }
}

export const PAYER_IMPORT_COMMAND: CommandSpec = {
  name: 'payer import',
  summary: "import a clearinghouse payer list (CSV, JSON or Stedi's) for one connection of PAYERS_FILE",
  positionals: [{ name: 'FILE', description: 'the payer list (docs/payers.md, "Importing a payer list")' }],
  options: {
    connection: { type: 'string', value: 'NAME', description: 'the connection of PAYERS_FILE (required)' },
    columns: {
      type: 'string',
      value: 'MAP',
      description: 'field=header pairs for a CSV with other headers, e.g. id=PayerID,name=Payer Name',
    },
    only: { type: 'string', value: 'COL=V|V', description: 'keep only rows whose column holds a value' },
    format: { type: 'string', value: 'FORMAT', description: 'csv, json or stedi (default: detected)' },
    'dry-run': { type: 'boolean', description: 'check the list and print what would be imported' },
  },
  async run({ values, positionals, io, config }) {
    const connection = values.connection;
    if (typeof connection !== 'string' || !connection) throw new CliError('--connection NAME is required');
    const format = values.format as string | undefined;
    if (format && !['csv', 'json', 'stedi', 'auto'].includes(format))
      throw new CliError('--format must be csv, json or stedi');
    let text: string;
    try {
      text = readFileSync(positionals[0]!, 'utf8');
    } catch (err) {
      throw new CliError(`${positionals[0]} could not be read (${(err as NodeJS.ErrnoException).code})`);
    }
    const list = importPayerList(text, {
      connection,
      ...(format ? { format: format as PayerListFormat | 'auto' } : {}),
      ...(typeof values.columns === 'string' ? { columns: values.columns } : {}),
      ...(typeof values.only === 'string' ? { only: values.only } : {}),
    });
    const lines = describeProblems(list);
    if (lines.length) io.stderr.write(`${lines.join('\n')}\n`);
    io.stdout.write(
      `${list.format}: ${list.entries.length} payers to import, ${list.problemCount} rows with problems, ${list.skipped.length} skipped.\n`,
    );
    if (values['dry-run'] === true || !list.entries.length) return list.entries.length ? 0 : 1;
    const summary = (await directoryCall(config(), 'payer.import', {
      connection,
      payers: list.entries,
    })) as DirectorySummary;
    io.stdout.write(
      `Imported for ${connection}: the directory now holds ${summary.payers} payers` +
        `${summary.shadowed ? ` (${summary.shadowed} imported ids already listed elsewhere were left out)` : ''}.\n`,
    );
    return list.problemCount ? 1 : 0;
  },
};
