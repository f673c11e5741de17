/**
 * `elig check`: submits a check through the HTTP API (like any client) and, with --wait, shows progress
 * until the result. Progress goes to stderr; the result goes to stdout as a summary for people (verdict,
 * plan, benefits, errors with what to do), or with --json as the API's JSON. Progress animates only when
 * both streams are terminals (and NO_COLOR/TERM=dumb are unset); otherwise it is plain lines, without
 * ANSI codes or carriage returns, fit for a log file or a pipe.
 */
import { summarizeCheck } from '../../checks/summary.ts';
import type { Config } from '../../config.ts';
import type { EligibilityCheckResponse } from '../../contract/check-response.ts';
import { API_OPTIONS, apiTarget } from '../api-target.ts';
import { CliError, type CommandSpec, type Io, UsageError } from '../args.ts';
import { renderCheckSummary } from '../check-summary.ts';

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
  charge?: string[];
  wait?: boolean;
  json?: boolean;
  url?: string;
  key?: string;
  timeout?: string;
}

export const CHECK_COMMAND: CommandSpec = {
  name: 'check',
  summary: 'submit a check through the API; with --wait, show its progress and a summary of the result',
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
    charge: {
      type: 'string',
      value: 'STC=AMOUNT',
      multiple: true,
      description:
        'a charge to estimate, e.g. MH=120 or AD=800 (repeatable, applied in order); the summary shows what to collect',
    },
    npi: { type: 'string', value: 'NPI', description: "the provider's NPI; default 1234567893" },
    provider: {
      type: 'string',
      value: 'NAME',
      description: "the provider's organization name; default Demo Clinic",
    },
    wait: {
      type: 'boolean',
      description:
        'show progress (stderr) until the result, then print a summary: verdict, plan, benefits, errors with what to do',
    },
    json: {
      type: 'boolean',
      description: "print the API's JSON instead of the summary (without --wait, the submit answer is JSON)",
    },
    timeout: {
      type: 'string',
      value: 'SECONDS',
      description: 'with --wait: give up after this long; default 900',
    },
    ...API_OPTIONS,
  },
  run: ({ config, values, io }) => checkCommand(config(), values as CheckArgs, io),
};

async function checkCommand(config: Config, args: CheckArgs, io: Io, env = process.env): Promise<number> {
  const { base, headers } = apiTarget(config, args, env);
  const body = {
    tradingPartnerServiceId: args.payer,
    provider: { organizationName: args.provider ?? 'Demo Clinic', npi: args.npi ?? '1234567893' },
    subscriber: { memberId: args.member, firstName: args.first, lastName: args.last, dateOfBirth: args.dob },
    ...(args.stc || args.dos || args.charge?.length
      ? {
          encounter: {
            ...(args.stc ? { serviceTypeCodes: args.stc.split(',') } : {}),
            ...(args.dos ? { dateOfService: args.dos } : {}),
            ...(args.charge?.length ? { charges: args.charge.map(chargeOf) } : {}),
          },
        }
      : {}),
  };
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
  const terminal = Boolean(io.stderr.isTTY && io.stdout.isTTY) && !env.NO_COLOR && env.TERM !== 'dumb';
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  let polls = 0;
  for (;;) {
    const status = (await call(`${base}/api/eligibility/${id}/status`, {
      headers,
    })) as EligibilityCheckResponse;
    const elapsed = ((Date.now() - started) / 1000).toFixed(1);
    if (status.status !== 'IN_PROGRESS') {
      if (terminal) io.stderr.write('\r\x1b[K');
      io.stderr.write(`Check ${id}: ${status.status} after ${elapsed}s\n`);
      io.stdout.write(
        args.json
          ? `${JSON.stringify(status, null, 2)}\n`
          : renderCheckSummary(summarizeCheck(status), { colour: terminal }),
      );
      return status.status === 'COMPLETED' ? 0 : 2;
    }
    if (Date.now() - started > limitMs)
      throw new CliError(`Check ${id} still IN_PROGRESS after ${elapsed}s; poll it later.`);
    const line = `Check ${id}: IN_PROGRESS (${elapsed}s)`;
    if (terminal) io.stderr.write(`\r\x1b[K${frames[polls % frames.length]} ${line}`);
    else if (polls % 10 === 0) io.stderr.write(`${line}\n`);
    polls++;
    await new Promise((r) => setTimeout(r, Math.min(2000, 200 + polls * 100)));
  }
}

/** One API call: its JSON body, or a CliError naming the status, code and message. */
export async function call(url: string, init: RequestInit): Promise<unknown> {
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

/** `MH=120` → `{ serviceTypeCode: 'MH', amount: 120 }`; `Mental Health=120` names the product type. */
export function chargeOf(text: string): { serviceTypeCode?: string; serviceType?: string; amount: number } {
  const m = /^([^=]+)=\$?([0-9]+(?:\.[0-9]{1,2})?)$/.exec(text.trim());
  if (!m) throw new UsageError(`--charge ${text}: write it STC=AMOUNT, e.g. MH=120 or AD=800.50`);
  const what = m[1]!.trim();
  const amount = Number(m[2]);
  return /^[A-Za-z0-9]{1,2}$/.test(what)
    ? { serviceTypeCode: what.toUpperCase(), amount }
    : { serviceType: what, amount };
}
