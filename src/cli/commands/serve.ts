/** `elig serve | api | worker`: run the service until SIGINT/SIGTERM, then shut down gracefully. */
import type { Config } from '../../config.ts';
import { type Roles, type Service, startService, VERSION } from '../../server.ts';
import { closeWebhookAgents } from '../../webhooks/send.ts';

export async function serveCommand(
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
