/**
 * `elig serve | api | worker`: run the service until SIGINT/SIGTERM, then shut down gracefully;
 * `elig migrate`: apply the migrations and exit.
 */
import type { Config } from '../../config.ts';
import { type Roles, type Service, startService, VERSION } from '../../server.ts';
import { openStore } from '../../store/open.ts';
import { closeWebhookAgents } from '../../webhooks/send.ts';
import type { CommandSpec } from '../args.ts';

const role = (name: string, summary: string, roles: Roles): CommandSpec => ({
  name,
  summary,
  options: {},
  run: ({ config, io }) => serveCommand(config(), roles, io),
});

export const SERVE_COMMANDS: CommandSpec[] = [
  role('serve', 'API, portal and workers in one process (default for npm start)', {
    api: true,
    worker: true,
  }),
  role('api', 'HTTP API and portal only (scale-out role)', { api: true, worker: false }),
  role('worker', 'check worker and webhook dispatcher only (scale-out role)', { api: false, worker: true }),
  {
    name: 'migrate',
    summary: 'apply database migrations and exit',
    options: {},
    async run({ config, io }) {
      await (await openStore(config())).close();
      io.stderr.write('Migrations applied.\n');
      return 0;
    },
  },
];

async function serveCommand(
  config: Config,
  roles: Roles,
  io: { stdout: NodeJS.WritableStream },
): Promise<number> {
  const service = await startService(config, { roles, initStoreInChildProcess: true });
  const store = config.databaseUrl ? 'PostgreSQL' : `PGlite in ${config.dataDir}`;
  const role = roles.api && roles.worker ? 'api + worker' : roles.api ? 'api' : 'worker';
  const from = process.env.ELIG_RUNNING_FROM ? `; ${process.env.ELIG_RUNNING_FROM}` : '';
  const lines = [
    `Eligibility service ${VERSION} (${role}; ${store}; ${payerSummary(service, config)}${from})`,
  ];
  if (service.url) {
    lines.push(
      `  API:      ${service.url}/api/eligibility`,
      `  Portal:   ${service.url}/portal`,
      `  OpenAPI:  ${service.url}/openapi.json`,
    );
  }
  const first = service.bootstrap;
  if (first && service.url) {
    lines.push(
      '',
      'First start: created the organization "Demo Clinic". These are shown only once:',
      `  Test API key:           ${first.apiKey}`,
      `  Portal sign-in link:    ${service.url}${first.loginPath}  (one-time, valid 7 days; owner ${first.ownerEmail})`,
      '',
      'Try it:',
      `  curl -s -X POST ${service.url}/api/eligibility -H 'Authorization: Key ${first.apiKey}' -H 'Content-Type: application/json' \\`,
      `    -d '{"tradingPartnerServiceId":"SANDBOX","provider":{"organizationName":"Demo Clinic","npi":"1234567893"},"subscriber":{"memberId":"SBX1000001","firstName":"JANE","lastName":"DOE","dateOfBirth":"19800115"}}'`,
    );
  }
  io.stdout.write(`${lines.join('\n')}\n`);
  await new Promise<void>((resolve) => {
    const onSignal = (signal: string) => {
      io.stdout.write(`Received ${signal}; shutting down (finishing or releasing claimed checks)...\n`);
      resolve();
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
  await service.stop();
  await closeWebhookAgents();
  return 0;
}

/** `sandbox payer SANDBOX + 3 payers from payers.json`: what the directory holds, never its URLs. */
function payerSummary(service: Service, config: Config): string {
  const sandbox = config.sandboxEnabled ? 'sandbox payer SANDBOX' : '';
  const fromFile = service.directory.entries.length - (config.sandboxEnabled ? 1 : 0);
  const file = config.payersFile
    ? `${fromFile} payer${fromFile === 1 ? '' : 's'} from ${config.payersFile}`
    : '';
  return [sandbox, file].filter(Boolean).join(' + ') || 'no payers';
}
