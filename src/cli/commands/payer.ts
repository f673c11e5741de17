/**
 * `elig payer list [--q TEXT] [--limit N] [--json]`: the payer directory as GET /api/payers shows it (ids,
 * names, aliases, connector types; never URLs or credentials), read from the configuration and PAYERS_FILE
 * alone: no server, no store, no secrets resolved. `--q` ranks as the API does. An invalid file is reported
 * exactly as a start would report it.
 */
import type { Config } from '../../config.ts';
import { findPayers } from '../../payers/directory.ts';
import { listConfiguredPayers } from '../../payers/directory-file.ts';
import { type CommandSpec, UsageError } from '../args.ts';

export const PAYER_LIST_COMMAND: CommandSpec = {
  name: 'payer list',
  summary: 'the payer directory (sandbox + PAYERS_FILE); no server needed',
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

export function payerList(
  config: Config,
  options: { json?: boolean; q?: string; limit?: number },
  io: { stdout: NodeJS.WritableStream },
): number {
  const payers = findPayers(listConfiguredPayers(config), options.q, options.limit);
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
