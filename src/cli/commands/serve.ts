/**
 * `elig serve | api | worker`: run the service until SIGINT/SIGTERM, then shut down gracefully;
 * `elig migrate`: apply the migrations and exit.
 */
import type { Config } from '../../config.ts';
import type { Roles, Service } from '../../server.ts';
import type { CommandSpec } from '../args.ts';

// The server, the store and the webhook sender are imported when a command runs, not when the CLI
// starts: `elig --help`, `elig x12 parse` and the admin commands do not pay for loading them.

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
      const { openStore } = await import('../../store/open.ts');
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
  const { startService, VERSION } = await import('../../server.ts');
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
      `  API docs: ${service.url}/docs`,
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
  if (!first && service.url) {
    // A later start: the first start's key and link were shown once; say how to get new ones.
    lines.push(
      '',
      'The first-start test key and sign-in link are shown only once. To get new credentials:',
      '  API key:              elig key create --org ORG_ID --name NAME   (organization ids: elig org list)',
      '  Portal sign-in link:  elig user reset-password --email EMAIL     (or an owner: Team in the portal)',
    );
  }
  // Listen for the signals before printing: whoever reads the address may stop us at once.
  const signalled = new Promise<void>((resolve) => {
    const onSignal = (signal: string) => {
      io.stdout.write(`Received ${signal}; shutting down (finishing or releasing claimed checks)...\n`);
      resolve();
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
  // SIGHUP re-reads PAYERS_FILE, as `elig payer reload` does; a file with problems changes nothing.
  const onHangUp = () => {
    const reload = service.directoryService?.reload();
    void reload?.then(
      (s) =>
        io.stdout.write(`Reloaded the payer directory: ${s.payers} payers, ${s.connections} connections.\n`),
      (err: Error) => io.stdout.write(`Payer directory not reloaded: ${err.message}\n`),
    );
  };
  process.on('SIGHUP', onHangUp);
  io.stdout.write(`${lines.join('\n')}\n`);
  await signalled;
  process.off('SIGHUP', onHangUp);
  await service.stop();
  await (await import('../../webhooks/send.ts')).closeWebhookAgents();
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
