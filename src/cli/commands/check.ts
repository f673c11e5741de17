/**
 * `elig check`: submits a check through the HTTP API (like any client) and, with --wait, shows progress
 * until the result. Progress goes to stderr, the result JSON to stdout.
 */
import type { Config } from '../../config.ts';
import { readLock } from '../../store/datadir-lock.ts';
import type { CommandSpec, Io } from '../args.ts';
import { CliError } from '../backend.ts';

interface CheckArgs {
  payer?: string;
  member?: string;
  first?: string;
  last?: string;
  dob?: string;
  npi?: string;
  provider?: string;
  stc?: string;
  dos?: string;
  wait?: boolean;
  url?: string;
  key?: string;
  timeout?: string;
}

export const CHECK_COMMAND: CommandSpec = {
  name: 'check',
  summary: 'submit a check through the API; with --wait, show its progress and the result',
  options: {
    payer: {
      type: 'string',
      value: 'ID',
      required: true,
      description: 'payer id (tradingPartnerServiceId), e.g. SANDBOX',
    },
    member: { type: 'string', value: 'ID', required: true, description: "the subscriber's member id" },
    first: { type: 'string', value: 'NAME', required: true, description: "the subscriber's first name" },
    last: { type: 'string', value: 'NAME', required: true, description: "the subscriber's last name" },
    dob: { type: 'string', value: 'YYYYMMDD', required: true, description: "the subscriber's date of birth" },
    stc: { type: 'string', value: 'CODES', description: 'service type codes, comma-separated (e.g. 30,PT)' },
    dos: { type: 'string', value: 'YYYYMMDD', description: 'date of service' },
    npi: { type: 'string', value: 'NPI', description: "the provider's NPI; default 1234567893" },
    provider: {
      type: 'string',
      value: 'NAME',
      description: "the provider's organization name; default Demo Clinic",
    },
    wait: { type: 'boolean', description: 'show progress until the result, then print it' },
    timeout: {
      type: 'string',
      value: 'SECONDS',
      description: 'with --wait: give up after this long; default 900',
    },
    key: { type: 'string', value: 'KEY', description: 'API key; default ELIG_API_KEY' },
    url: {
      type: 'string',
      value: 'URL',
      description: "the API's base URL; default ELIG_API_URL, or the server running on DATA_DIR",
    },
  },
  run: ({ config, values, io }) => checkCommand(config(), values as CheckArgs, io),
};

async function checkCommand(config: Config, args: CheckArgs, io: Io, env = process.env): Promise<number> {
  const key = args.key ?? env.ELIG_API_KEY;
  if (!key)
    throw new CliError(
      'No API key: pass --key or set ELIG_API_KEY (the test key printed at first start, or `elig key create`).',
    );
  const base =
    args.url ?? env.ELIG_API_URL ?? readLock(config.dataDir)?.adminUrl ?? `http://127.0.0.1:${config.port}`;
  const body = {
    tradingPartnerServiceId: args.payer,
    provider: { organizationName: args.provider ?? 'Demo Clinic', npi: args.npi ?? '1234567893' },
    subscriber: { memberId: args.member, firstName: args.first, lastName: args.last, dateOfBirth: args.dob },
    ...(args.stc || args.dos
      ? {
          encounter: {
            ...(args.stc ? { serviceTypeCodes: args.stc.split(',') } : {}),
            ...(args.dos ? { dateOfService: args.dos } : {}),
          },
        }
      : {}),
  };
  const headers = { authorization: `Key ${key}`, 'content-type': 'application/json' };
  const submitted = await call(`${base}/api/eligibility`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  const { id } = submitted as { id: string };
  if (!args.wait) {
    io.stdout.write(`${JSON.stringify(submitted, null, 2)}\n`);
    return 0;
  }
  const started = Date.now();
  const limitMs = Number(args.timeout ?? 900) * 1000;
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  let polls = 0;
  for (;;) {
    const status = (await call(`${base}/api/eligibility/${id}/status`, { headers })) as { status: string };
    const elapsed = ((Date.now() - started) / 1000).toFixed(1);
    if (status.status !== 'IN_PROGRESS') {
      if (io.stderr.isTTY) io.stderr.write('\r\x1b[K');
      io.stderr.write(`Check ${id}: ${status.status} after ${elapsed}s\n`);
      io.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
      return status.status === 'COMPLETED' ? 0 : 2;
    }
    if (Date.now() - started > limitMs)
      throw new CliError(`Check ${id} still IN_PROGRESS after ${elapsed}s; poll it later.`);
    const line = `${frames[polls % frames.length]} Check ${id}: IN_PROGRESS (${elapsed}s)`;
    if (io.stderr.isTTY) io.stderr.write(`\r\x1b[K${line}`);
    else if (polls % 10 === 0) io.stderr.write(`${line}\n`);
    polls++;
    await new Promise((r) => setTimeout(r, Math.min(2000, 200 + polls * 100)));
  }
}

async function call(url: string, init: RequestInit): Promise<unknown> {
  const res = await fetch(url, init).catch((err: Error) => {
    throw new CliError(
      `Could not reach the API at ${new URL(url).origin}: ${err.message}. Is \`elig serve\` running?`,
    );
  });
  const body = (await res.json().catch(() => ({}))) as { code?: string; message?: string };
  if (!res.ok)
    throw new CliError(`API answered ${res.status} ${body.code ?? ''}: ${body.message ?? ''}`.trim());
  return body;
}
