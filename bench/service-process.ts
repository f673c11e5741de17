/**
 * A service (API and a worker) in a process of its own, for benchmarks whose load generator and fakes
 * must not share the service's event loop: configured from this process's environment (as `elig serve`),
 * it prints one line `service {"url": …, "apiKey": …}` (the bootstrap key of its fresh store) and runs until
 * SIGTERM. Used by bench/clearinghouse.
 */
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/server.ts';

const service = await startService(loadConfig(process.env), { secretEnv: process.env });
process.stdout.write(`service ${JSON.stringify({ url: service.url, apiKey: service.bootstrap?.apiKey })}\n`);
process.once('SIGTERM', () => {
  void service.stop().then(() => process.exit(0));
});
