// The examples of the OpenAPI document (src/api/openapi-examples.ts): starts the service on a temporary
// store, submits each sandbox scenario, and writes the answers to src/api/openapi-examples.json
// (npm run docs:examples). test/api/openapi.examples.test.ts fails when the sandbox's answers change.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { EXAMPLES_FILE } from '../src/api/openapi-examples.ts';
import { askSandboxScenarios } from '../test/helpers/sandbox-examples.ts';
import { startTestService } from '../test/helpers/service.ts';

const svc = await startTestService();
try {
  const answers = await askSandboxScenarios(svc.url, svc.apiKey);
  writeFileSync(EXAMPLES_FILE, `${JSON.stringify(answers, null, 2)}\n`);
  // In the repository's format, so a rerun with unchanged answers changes nothing but the run's values.
  execFileSync('npx', ['biome', 'format', '--write', EXAMPLES_FILE], { stdio: 'ignore' });
  console.log(`wrote ${EXAMPLES_FILE}`);
} finally {
  await svc.stop();
}
