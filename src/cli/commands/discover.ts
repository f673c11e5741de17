/**
 * `elig discover`: insurance discovery through the HTTP API (docs/discovery.md), like any client: the
 * patient's name and date of birth, no member id. With --wait it polls until every payer asked has
 * answered, then prints the coverages found, active first (or, with --json, the API's JSON).
 */
import type { Config } from '../../config.ts';
import type { Discovery } from '../../contract/discovery.ts';
import { API_OPTIONS, apiTarget } from '../api-target.ts';
import { CliError, type CommandSpec, type Io } from '../args.ts';
import { call } from './check.ts';

interface DiscoverArgs {
  first?: string;
  last?: string;
  dob?: string;
  gender?: string;
  state?: string;
  zip?: string;
  payers?: string;
  dos?: string;
  npi?: string;
  provider?: string;
  wait?: boolean;
  json?: boolean;
  timeout?: string;
  url?: string;
  key?: string;
}

export const DISCOVER_COMMAND: CommandSpec = {
  name: 'discover',
  summary:
    "find a patient's coverage from name and date of birth (insurance discovery); with --wait, what was found",
  options: {
    first: { type: 'string', value: 'NAME', required: true, description: "the patient's first name" },
    last: { type: 'string', value: 'NAME', required: true, description: "the patient's last name" },
    dob: { type: 'string', value: 'YYYYMMDD', required: true, description: "the patient's date of birth" },
    gender: { type: 'string', value: 'M|F|U', description: "the patient's gender" },
    state: {
      type: 'string',
      value: 'XX',
      description: "the patient's state (narrows the directory's payers)",
    },
    zip: { type: 'string', value: 'ZIP', description: "the patient's ZIP code" },
    payers: {
      type: 'string',
      value: 'IDS',
      description:
        "payer ids to ask, comma-separated; default the organization's discovery list, else every payer taking demographic searches",
    },
    dos: { type: 'string', value: 'YYYYMMDD', description: 'date of service' },
    npi: { type: 'string', value: 'NPI', description: "the provider's NPI; default 1234567893" },
    provider: {
      type: 'string',
      value: 'NAME',
      description: "the provider's organization name; default Demo Clinic",
    },
    wait: {
      type: 'boolean',
      description: 'wait until every payer asked has answered, then print the coverages found',
    },
    json: { type: 'boolean', description: "print the API's JSON instead of the summary" },
    timeout: {
      type: 'string',
      value: 'SECONDS',
      description: 'with --wait: give up after this long; default 900',
    },
    ...API_OPTIONS,
  },
  run: ({ config, values, io }) => discoverCommand(config(), values as DiscoverArgs, io),
};

function requestOf(args: DiscoverArgs) {
  return {
    provider: { organizationName: args.provider ?? 'Demo Clinic', npi: args.npi ?? '1234567893' },
    patient: {
      firstName: args.first,
      lastName: args.last,
      dateOfBirth: args.dob,
      ...(args.gender ? { gender: args.gender } : {}),
      ...(args.state ? { state: args.state } : {}),
      ...(args.zip ? { postalCode: args.zip } : {}),
    },
    ...(args.dos ? { dateOfService: args.dos } : {}),
    ...(args.payers ? { payers: args.payers.split(',').map((p) => p.trim()) } : {}),
  };
}

/** The coverages found, one line each, for people: verdict, payer, plan, and the check to read. */
export function renderDiscovery(d: Discovery): string {
  const head = `Discovery ${d.id}: ${d.coverages.length} coverage${d.coverages.length === 1 ? '' : 's'} found among ${d.progress.asked} payer${d.progress.asked === 1 ? '' : 's'} asked`;
  const lines = d.coverages.map((c) => {
    const payer = c.payerName ? `${c.tradingPartnerServiceId} (${c.payerName})` : c.tradingPartnerServiceId;
    return `  ${c.verdict.status.padEnd(12)} ${payer}: ${c.verdict.summary}\n${' '.repeat(15)}check ${c.checkId}`;
  });
  return `${[head, ...lines].join('\n')}\n`;
}

async function discoverCommand(config: Config, args: DiscoverArgs, io: Io): Promise<number> {
  const { base, headers } = apiTarget(config, args, process.env);
  const accepted = (await call(`${base}/api/eligibility/discovery`, {
    method: 'POST',
    headers,
    body: JSON.stringify(requestOf(args)),
  })) as { id: string };
  if (!args.wait) {
    io.stdout.write(`${JSON.stringify(accepted, null, 2)}\n`);
    return 0;
  }
  const started = Date.now();
  const limitMs = Number(args.timeout ?? 900) * 1000;
  for (let polls = 0; ; polls++) {
    const d = (await call(`${base}/api/eligibility/discovery/${accepted.id}`, { headers })) as Discovery;
    const elapsed = ((Date.now() - started) / 1000).toFixed(1);
    if (d.status === 'COMPLETED') {
      io.stderr.write(`Discovery ${d.id}: COMPLETED after ${elapsed}s\n`);
      io.stdout.write(args.json ? `${JSON.stringify(d, null, 2)}\n` : renderDiscovery(d));
      return d.coverages.length ? 0 : 2;
    }
    if (Date.now() - started > limitMs)
      throw new CliError(`Discovery ${d.id} still IN_PROGRESS after ${elapsed}s; poll it later.`);
    if (polls % 10 === 0)
      io.stderr.write(
        `Discovery ${d.id}: ${d.progress.answered} of ${d.progress.asked} payers answered (${elapsed}s)\n`,
      );
    await new Promise((r) => setTimeout(r, Math.min(2000, 200 + polls * 100)));
  }
}
