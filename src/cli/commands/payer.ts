/**
 * `elig payer list [--json]`: the payer directory as GET /api/payers shows it (ids, names, aliases,
 * connector types; never URLs or credentials), read from the configuration and PAYERS_FILE alone: no
 * server, no store, no secrets resolved. An invalid file is reported exactly as a start would report it.
 */
import type { Config } from '../../config.ts';
import { listConfiguredPayers } from '../../payers/directory-file.ts';
import type { CommandSpec } from '../args.ts';

export const PAYER_LIST_COMMAND: CommandSpec = {
  name: 'payer list',
  summary: 'the payer directory (sandbox + PAYERS_FILE); no server needed',
  options: {
    json: { type: 'boolean', description: 'print JSON (`{ "payers": [...] }`) instead of a table' },
  },
  async run({ values, io, config }) {
    return payerList(config(), { json: values.json === true }, io);
  },
};

export function payerList(
  config: Config,
  options: { json?: boolean },
  io: { stdout: NodeJS.WritableStream },
): number {
  const payers = listConfiguredPayers(config);
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
