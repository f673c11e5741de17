/**
 * The `elig` command line (see "The CLI contract" in design.md). Prints results on stdout, messages on
 * stderr. Exit 0 on success, 1 on a runtime error, 2 on a usage error (an unknown command or option, a
 * missing required option); `check --wait` also exits 2 when the check did not complete.
 */
import { ConfigError, loadConfig } from '../config.ts';
import { DataDirLockedError } from '../store/datadir-lock.ts';
import { DataDirPermissionError } from '../store/private-dir.ts';
import {
  CliError,
  type CommandSpec,
  commandHelp,
  type Io,
  overview,
  parseCommandLine,
  UsageError,
  usageLine,
} from './args.ts';
import { ADMIN_COMMANDS } from './commands/admin.ts';
import { BATCH_COMMANDS } from './commands/batch.ts';
import { CHECK_COMMAND } from './commands/check.ts';
import { DISCOVER_COMMAND } from './commands/discover.ts';
import { MONITOR_COMMANDS } from './commands/monitor.ts';
import { PAYER_IMPORT_COMMAND, PAYER_LIST_COMMAND, PAYER_RELOAD_COMMAND } from './commands/payer.ts';
import { SERVE_COMMANDS } from './commands/serve.ts';
import { X12_PARSE_COMMAND } from './commands/x12.ts';

const COMMANDS: readonly CommandSpec[] = [
  ...SERVE_COMMANDS,
  ...ADMIN_COMMANDS,
  CHECK_COMMAND,
  DISCOVER_COMMAND,
  ...BATCH_COMMANDS,
  ...MONITOR_COMMANDS,
  PAYER_LIST_COMMAND,
  PAYER_RELOAD_COMMAND,
  PAYER_IMPORT_COMMAND,
  X12_PARSE_COMMAND,
];

export async function main(
  argv: string[],
  io: Io = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  let command: CommandSpec | undefined;
  try {
    const parsed = parseCommandLine(argv, COMMANDS, 'serve');
    command = parsed.command;
    if (parsed.kind === 'help') {
      io.stdout.write(parsed.command ? commandHelp(parsed.command) : overview(COMMANDS));
      return 0;
    }
    let config: ReturnType<typeof loadConfig> | undefined;
    return await parsed.command.run({
      values: parsed.values,
      positionals: parsed.positionals,
      io,
      config: () => {
        config ??= loadConfig();
        return config;
      },
    });
  } catch (err) {
    if (err instanceof UsageError) {
      const about = err.command ?? command;
      if (!about) io.stderr.write(`elig: ${err.message}\n\n${overview(COMMANDS)}`);
      else {
        io.stderr.write(`elig ${about.name}: ${err.message}\nUsage: ${usageLine(about)}\n`);
        io.stderr.write(`Run \`elig ${about.name} --help\` for its options.\n`);
      }
      return 2;
    }
    if (
      err instanceof CliError ||
      err instanceof ConfigError ||
      err instanceof DataDirLockedError ||
      err instanceof DataDirPermissionError
    ) {
      io.stderr.write(`elig: ${err.message}\n`);
      return 1;
    }
    if ((err as Error).name === 'AdminInputError') {
      io.stderr.write(`elig: ${(err as Error).message}\n`);
      return 1;
    }
    // Unexpected: say what failed in one line; the stack only when asked for (ELIG_DEBUG=1).
    io.stderr.write(`elig: ${(err as Error).name}: ${(err as Error).message}\n`);
    if (process.env.ELIG_DEBUG) io.stderr.write(`${(err as Error).stack}\n`);
    return 1;
  }
}
