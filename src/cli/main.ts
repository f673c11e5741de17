/**
 * The `elig` command line (see "The CLI contract" in design.md). Prints results on stdout, messages on
 * stderr; exit 0 on success, 1 on a usage or runtime error.
 */
import { parseArgs } from 'node:util';
import { type Config, ConfigError, loadConfig } from '../config.ts';
import { DataDirLockedError, readLock } from '../store/datadir-lock.ts';
import { openStore } from '../store/open.ts';
import { adminCall, CliError } from './backend.ts';
import { checkCommand } from './commands/check.ts';
import { payerCommand } from './commands/payer.ts';
import { serveCommand } from './commands/serve.ts';

const USAGE = `Usage: elig <command> [options]

  serve                      API, portal and workers in one process (default for npm start)
  api                        HTTP API and portal only (scale-out role)
  worker                     check worker and webhook dispatcher only (scale-out role)
  migrate                    apply database migrations and exit
  org create --name NAME     create an organization; prints its id
  org list                   list organizations (JSON)
  key create --org ID --name NAME [--scopes eligibility:read,eligibility:write] [--mode test|live]
                             create an API key; prints the key (shown once)
  check --payer ID --member ID --first NAME --last NAME --dob YYYYMMDD [--stc 30,PT] [--dos YYYYMMDD]
        [--npi NPI] [--provider NAME] [--wait] [--key KEY] [--url URL]
                             submit a check through the API (key from --key or ELIG_API_KEY)
  webhook set --org ID [--url URL|none] [--secret S | --generate-secret]
  webhook show --org ID      URL and signing secret (JSON)
  webhook roll-secret --org ID
                             new secret; the old one keeps signing for 24 h
  webhook deliveries --org ID
                             recent events and their delivery state (JSON)
  user create --org ID --email EMAIL [--role owner|member]
                             create a portal user; prints a one-time link to set the password
  user reset-password --email EMAIL
                             prints a one-time link to set a new password
  x12 parse FILE [--raw]     print a 271 file as the API's result JSON (--raw: the loop tree)
  payer list [--json]        the payer directory (sandbox + PAYERS_FILE); no server needed

Configuration comes from environment variables (see README).`;

const OPTIONS = {
  name: { type: 'string' },
  org: { type: 'string' },
  scopes: { type: 'string' },
  mode: { type: 'string' },
  payer: { type: 'string' },
  member: { type: 'string' },
  first: { type: 'string' },
  last: { type: 'string' },
  dob: { type: 'string' },
  npi: { type: 'string' },
  provider: { type: 'string' },
  stc: { type: 'string' },
  dos: { type: 'string' },
  wait: { type: 'boolean' },
  url: { type: 'string' },
  key: { type: 'string' },
  timeout: { type: 'string' },
  raw: { type: 'boolean' },
  json: { type: 'boolean' },
  secret: { type: 'string' },
  email: { type: 'string' },
  role: { type: 'string' },
  'generate-secret': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function main(
  argv: string[],
  io = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    io.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
    return 1;
  }
  const { values, positionals } = parsed;
  const [command = 'serve', sub] = positionals;
  if (values.help || command === 'help') {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    if (command === 'x12') {
      const { x12Command } = await import('./commands/x12.ts');
      return await x12Command(positionals.slice(1).concat(values.raw ? ['--raw'] : []), io);
    }
    const config = loadConfig();
    switch (`${command}${sub ? ` ${sub}` : ''}`) {
      case 'serve':
        return await serveCommand(config, { api: true, worker: true }, io);
      case 'api':
        return await serveCommand(config, { api: true, worker: false }, io);
      case 'worker':
        return await serveCommand(config, { api: false, worker: true }, io);
      case 'migrate':
        await (await openStore(config)).close();
        io.stderr.write('Migrations applied.\n');
        return 0;
      case 'org create': {
        const org = (await adminCall(config, 'org.create', { name: values.name })) as { id: string };
        io.stdout.write(`${org.id}\n`);
        return 0;
      }
      case 'org list':
        io.stdout.write(`${JSON.stringify(await adminCall(config, 'org.list', {}), null, 2)}\n`);
        return 0;
      case 'key create': {
        const created = (await adminCall(config, 'key.create', {
          org: values.org,
          name: values.name,
          scopes: values.scopes,
          mode: values.mode,
        })) as { key: string; prefix: string };
        io.stdout.write(`${created.key}\n`);
        io.stderr.write(`Created key ${created.prefix}… It is shown only once: store it now.\n`);
        return 0;
      }
      case 'webhook set':
        if (values.secret && values['generate-secret'])
          throw new CliError('use either --secret or --generate-secret');
        io.stdout.write(
          `${JSON.stringify(
            await adminCall(config, 'webhook.set', {
              org: values.org,
              url: values.url,
              secret: values.secret,
              generateSecret: values['generate-secret'] ?? false,
            }),
            null,
            2,
          )}\n`,
        );
        return 0;
      case 'webhook show':
      case 'webhook roll-secret':
      case 'webhook deliveries':
        io.stdout.write(
          `${JSON.stringify(await adminCall(config, `webhook.${sub}`, { org: values.org }), null, 2)}\n`,
        );
        return 0;
      case 'user create':
      case 'user reset-password': {
        const r = (await adminCall(config, `user.${sub}`, {
          org: values.org,
          email: values.email,
          role: values.role,
        })) as {
          loginPath: string;
          expiresAt: string;
        };
        const known = config.publicUrl ?? readLock(config.dataDir)?.adminUrl;
        const base = known ?? `http://${config.host}:${config.port}`;
        io.stdout.write(`${base}${r.loginPath}\n`);
        if (!known) {
          // On PostgreSQL there is no lock file naming the running server, so the address is a guess.
          io.stderr.write(
            `The link assumes the portal is at ${base}; set PUBLIC_URL to the address users reach it at.\n`,
          );
        }
        io.stderr.write(
          `One-time link, valid until ${r.expiresAt}. Give it to the user over a trusted channel.\n`,
        );
        return 0;
      }
      case 'check':
        return await checkCommand(config, values, io);
      case 'payer':
      case 'payer list':
        return payerCommand(config, sub, values, io);
      default:
        io.stderr.write(`Unknown command: ${[command, sub].filter(Boolean).join(' ')}\n\n${USAGE}\n`);
        return 1;
    }
  } catch (err) {
    if (err instanceof CliError || err instanceof ConfigError || err instanceof DataDirLockedError) {
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

export type { Config };
