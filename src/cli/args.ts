/**
 * Commands and their own options: each command declares the options it takes, so `elig org create --dob x`
 * is refused (exit 2) instead of silently ignored, and `elig <command> --help` lists only that command's
 * options. Parsing is node:util's parseArgs, strict, run per command.
 */
import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** How the value reads in usage lines, e.g. `NAME`, `test|live`. */
  value?: string;
  required?: boolean;
  /** The option may be given several times (its value is then a list). */
  multiple?: boolean;
  description: string;
}

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export interface CommandInput {
  values: OptionValues;
  positionals: string[];
  io: Io;
  /** The configuration from the environment, loaded on first use (`x12 parse` needs none). */
  config(): Config;
}

export interface CommandSpec {
  /** The words that name the command: `serve`, `org create`. */
  name: string;
  summary: string;
  options: Record<string, OptionSpec>;
  /** Positional arguments, all required, e.g. `FILE`. */
  positionals?: { name: string; description: string }[];
  run(input: CommandInput): Promise<number>;
}

/** A runtime failure the CLI reports in words (exit 1), as opposed to a usage error (exit 2). */
export class CliError extends Error {
  override name = 'CliError';
}

/** A command line that names no command, or gives a command what it does not take: exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
  constructor(
    message: string,
    readonly command?: CommandSpec,
  ) {
    super(message);
  }
}

export type ParsedCommandLine =
  | { kind: 'help'; command?: CommandSpec }
  | { kind: 'run'; command: CommandSpec; values: OptionValues; positionals: string[] };

/**
 * Reads `<command words> [options] [positionals]`. No words means `defaultCommand`; `--help` (or `-h`, or
 * `help [command]`) asks for help.
 */
export function parseCommandLine(
  argv: string[],
  commands: readonly CommandSpec[],
  defaultCommand: string,
): ParsedCommandLine {
  const words: string[] = [];
  while (words.length < argv.length && !argv[words.length]!.startsWith('-')) words.push(argv[words.length]!);
  if (words[0] === 'help') {
    return words.length === 1
      ? { kind: 'help' }
      : { kind: 'help', command: findCommand(words.slice(1), commands) };
  }
  if (!words.length && (argv[0] === '--help' || argv[0] === '-h')) return { kind: 'help' };
  const command = findCommand(words.length ? words : [defaultCommand], commands);
  const rest = words.length ? argv.slice(command.name.split(' ').length) : argv;
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...optionConfig(command.options), help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new UsageError(readableParseError(err as Error), command);
  }
  const values = parsed.values as OptionValues;
  if (values.help) return { kind: 'help', command };
  const expected = command.positionals ?? [];
  if (parsed.positionals.length > expected.length) {
    throw new UsageError(`unexpected argument ${parsed.positionals[expected.length]}`, command);
  }
  const missingPositional = expected[parsed.positionals.length];
  if (missingPositional) throw new UsageError(`${missingPositional.name} is required`, command);
  for (const [name, spec] of Object.entries(command.options)) {
    if (spec.required && (values[name] === undefined || values[name] === '')) {
      throw new UsageError(`--${name} is required`, command);
    }
  }
  return { kind: 'run', command, values, positionals: parsed.positionals };
}

/** The command its leading words name (one or two words); a UsageError when they name none. */
function findCommand(words: string[], commands: readonly CommandSpec[]): CommandSpec {
  for (let n = Math.min(words.length, 2); n > 0; n--) {
    const name = words.slice(0, n).join(' ');
    const command = commands.find((c) => c.name === name);
    if (command) return command;
  }
  const group = commands.filter((c) => c.name.startsWith(`${words[0]} `)).map((c) => c.name);
  if (group.length && words.length === 1) {
    throw new UsageError(`${words[0]} needs a subcommand: ${group.join(', ')}`);
  }
  throw new UsageError(`unknown command: ${words.join(' ')}`);
}

function optionConfig(options: Record<string, OptionSpec>) {
  return Object.fromEntries(
    Object.entries(options).map(([name, spec]) => [
      name,
      { type: spec.type, ...(spec.multiple ? { multiple: true } : {}) },
    ]),
  );
}

/** parseArgs says `Unknown option '--dob'. To specify a positional argument starting with a '-', …`. */
function readableParseError(err: Error): string {
  const unknownOption = /^Unknown option '([^']+)'/.exec(err.message);
  if (unknownOption) return `unknown option ${unknownOption[1]}`;
  const missingValue = /^Option '(--[\w-]+)[^']*' argument missing/.exec(err.message);
  if (missingValue) return `${missingValue[1]} needs a value`;
  return err.message.replace(/\.$/, '');
}

/** `elig key create --org ID --name NAME [--scopes LIST] [--mode test|live]`, wrapped at 100 columns. */
export function usageLine(command: CommandSpec): string {
  const parts = [`elig ${command.name}`, ...(command.positionals ?? []).map((p) => p.name)];
  for (const [name, spec] of Object.entries(command.options)) {
    const option = spec.type === 'boolean' ? `--${name}` : `--${name} ${spec.value ?? 'VALUE'}`;
    parts.push(spec.required ? option : `[${option}]`);
  }
  return wrap(parts, 100, '      ');
}

export function commandHelp(command: CommandSpec): string {
  const rows: [string, string][] = [
    ...(command.positionals ?? []).map((p): [string, string] => [p.name, p.description]),
    ...Object.entries(command.options).map(([name, spec]): [string, string] => [
      spec.type === 'boolean' ? `--${name}` : `--${name} ${spec.value ?? 'VALUE'}`,
      spec.required ? `${spec.description} (required)` : spec.description,
    ]),
    ['-h, --help', 'show this help'],
  ];
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  const table = rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`).join('\n');
  const summary = `${command.summary[0]!.toUpperCase()}${command.summary.slice(1)}.`;
  return `Usage: ${usageLine(command)}\n\n${summary}\n\nOptions:\n${table}\n`;
}

export function overview(commands: readonly CommandSpec[]): string {
  const lines = commands.map((c) => {
    const usage = usageLine(c).replace(/^elig /, '');
    return usage.length <= 26 && !usage.includes('\n')
      ? `  ${usage.padEnd(27)}${c.summary}`
      : `  ${usage.replaceAll('\n', '\n  ')}\n  ${' '.repeat(27)}${c.summary}`;
  });
  return [
    'Usage: elig <command> [options]',
    '',
    ...lines,
    '',
    '`elig <command> --help` lists the options of one command.',
    'Configuration comes from environment variables (see README).',
    '',
  ].join('\n');
}

function wrap(parts: string[], width: number, indent: string): string {
  const lines = [parts[0]!];
  for (const part of parts.slice(1)) {
    const last = lines[lines.length - 1]!;
    if (last.length + 1 + part.length > width) lines.push(indent + part);
    else lines[lines.length - 1] = `${last} ${part}`;
  }
  return lines.join('\n');
}
