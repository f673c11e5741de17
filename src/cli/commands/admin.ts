/**
 * `elig org | key | webhook | user ...`: the admin operations (tenancy/admin-ops.ts), run directly on the
 * store or through the running server (see backend.ts). Ids and keys alone on stdout, messages on stderr.
 */
import { readFileSync } from 'node:fs';
import type { Config } from '../../config.ts';
import { readLock } from '../../store/datadir-lock.ts';
import { type CommandSpec, type Io, type OptionSpec, UsageError } from '../args.ts';

/** The store and the admin operations load only when a command runs, so `elig --help` stays quick. */
const adminCall: typeof import('../backend.ts').adminCall = async (...args) =>
  (await import('../backend.ts')).adminCall(...args);

const ORG: OptionSpec = { type: 'string', value: 'ID', required: true, description: 'organization id' };

const printJson = (io: Io, value: unknown) => io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

const webhookRead = (sub: string, summary: string): CommandSpec => ({
  name: `webhook ${sub}`,
  summary,
  options: { org: ORG },
  async run({ config, values, io }) {
    printJson(io, await adminCall(config(), `webhook.${sub}`, { org: values.org }));
    return 0;
  },
});

export const ADMIN_COMMANDS: CommandSpec[] = [
  {
    name: 'org create',
    summary: 'create an organization; prints its id',
    options: { name: { type: 'string', value: 'NAME', required: true, description: 'organization name' } },
    async run({ config, values, io }) {
      const org = (await adminCall(config(), 'org.create', { name: values.name })) as { id: string };
      io.stdout.write(`${org.id}\n`);
      return 0;
    },
  },
  {
    name: 'org list',
    summary: 'list organizations (JSON)',
    options: {},
    async run({ config, io }) {
      printJson(io, await adminCall(config(), 'org.list', {}));
      return 0;
    },
  },
  {
    name: 'key create',
    summary: 'create an API key; prints the key (shown once)',
    options: {
      org: ORG,
      name: { type: 'string', value: 'NAME', required: true, description: 'what the key is for' },
      scopes: {
        type: 'string',
        value: 'LIST',
        description: 'comma-separated scopes; default eligibility:read,eligibility:write',
      },
      mode: {
        type: 'string',
        value: 'test|live',
        description: 'key prefix elig_test_ or elig_live_; default test',
      },
    },
    async run({ config, values, io }) {
      const created = (await adminCall(config(), 'key.create', {
        org: values.org,
        name: values.name,
        scopes: values.scopes,
        mode: values.mode,
      })) as { key: string; prefix: string };
      io.stdout.write(`${created.key}\n`);
      io.stderr.write(`Created key ${created.prefix}… It is shown only once: store it now.\n`);
      return 0;
    },
  },
  {
    name: 'webhook set',
    summary: 'set the webhook URL and/or signing secret (prints the settings as JSON)',
    options: {
      org: ORG,
      url: { type: 'string', value: 'URL|none', description: 'where events are sent; none removes it' },
      secret: {
        type: 'string',
        value: 'SECRET',
        description: 'a signing secret you choose (24-256 characters)',
      },
      'generate-secret': { type: 'boolean', description: 'generate a new signing secret instead' },
    },
    async run({ config, values, io }) {
      if (values.secret && values['generate-secret']) {
        throw new UsageError('use either --secret or --generate-secret');
      }
      printJson(
        io,
        await adminCall(config(), 'webhook.set', {
          org: values.org,
          url: values.url,
          secret: values.secret,
          generateSecret: values['generate-secret'] ?? false,
        }),
      );
      return 0;
    },
  },
  webhookRead('show', 'URL and signing secret (JSON)'),
  webhookRead('roll-secret', 'new secret; the old one keeps signing for 24 h'),
  webhookRead('deliveries', 'recent events and their delivery state (JSON)'),
  {
    name: 'fees import',
    summary: "replace an organization's fee schedule with a CSV (procedure_code, payer_id, allowed_amount)",
    options: {
      org: ORG,
      file: {
        type: 'string',
        value: 'PATH',
        required: true,
        description: 'the CSV file (docs/estimates.md)',
      },
    },
    async run({ config, values, io }) {
      const csv = readFileSync(String(values.file), 'utf8');
      const done = (await adminCall(config(), 'fees.import', { org: values.org, csv })) as { rows: number };
      io.stderr.write(`The fee schedule now holds ${done.rows} row${done.rows === 1 ? '' : 's'}.\n`);
      return 0;
    },
  },
  {
    name: 'fees show',
    summary: "an organization's fee schedule: its size and first rows (JSON)",
    options: { org: ORG },
    async run({ config, values, io }) {
      printJson(io, await adminCall(config(), 'fees.show', { org: values.org }));
      return 0;
    },
  },
  {
    name: 'user create',
    summary: 'create a portal user; prints a one-time link to set the password',
    options: {
      org: ORG,
      email: { type: 'string', value: 'EMAIL', required: true, description: "the user's email address" },
      role: { type: 'string', value: 'owner|member', description: 'portal role; default member' },
    },
    run: ({ config, values, io }) =>
      printLoginLink(config(), io, 'user.create', {
        org: values.org,
        email: values.email,
        role: values.role,
      }),
  },
  {
    name: 'user reset-password',
    summary: 'prints a one-time link to set a new password',
    options: {
      email: { type: 'string', value: 'EMAIL', required: true, description: "the user's email address" },
    },
    run: ({ config, values, io }) =>
      printLoginLink(config(), io, 'user.reset-password', { email: values.email }),
  },
];

async function printLoginLink(
  config: Config,
  io: Io,
  op: string,
  args: Record<string, unknown>,
): Promise<number> {
  const r = (await adminCall(config, op, args)) as { loginPath: string; expiresAt: string };
  const known = config.publicUrl ?? readLock(config.dataDir)?.adminUrl;
  const base = known ?? `http://${config.host}:${config.port}`;
  io.stdout.write(`${base}${r.loginPath}\n`);
  if (!known) {
    // On PostgreSQL there is no lock file naming the running server, so the address is a guess.
    io.stderr.write(
      `The link assumes the portal is at ${base}; set PUBLIC_URL to the address users reach it at.\n`,
    );
  }
  io.stderr.write(`One-time link, valid until ${r.expiresAt}. Give it to the user over a trusted channel.\n`);
  return 0;
}
