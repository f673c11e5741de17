// The OpenAPI examples are the sandbox's real answers (src/api/openapi-examples.ts): this asks the sandbox
// each scenario again and fails when an answer differs from the recorded one. After a deliberate change of
// the answers, `npm run docs:examples` records them again.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { EXAMPLE_SCENARIOS, type ExampleName, recordedExamples } from '../../src/api/openapi-examples.ts';
import { askSandboxScenarios, withoutRunValues } from '../helpers/sandbox-examples.ts';
import { client, startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.stop());

test('each recorded example is what the sandbox answers now (npm run docs:examples records them)', async () => {
  const recorded = recordedExamples();
  const live = await askSandboxScenarios(svc.url, svc.apiKey);
  for (const name of Object.keys(EXAMPLE_SCENARIOS) as ExampleName[]) {
    assert.ok(recorded[name], `${name} is recorded`);
    assert.deepEqual(
      withoutRunValues(recorded[name]),
      withoutRunValues(live[name]),
      `${name}: the sandbox's answer changed; if that is intended, run npm run docs:examples`,
    );
  }
});

test('the scenarios are the ones the document promises', () => {
  const recorded = recordedExamples();
  const outcome = (name: ExampleName) =>
    recorded[name]?.result as Record<string, unknown> & {
      benefits?: { coverageStatus?: string }[];
      errors?: { code: string }[];
    };
  assert.equal(outcome('ppoActive').status, 'COMPLETED');
  assert.equal(
    (outcome('ppoActive').planInformation as { insuranceTypeCode: string }).insuranceTypeCode,
    'PR',
  );
  assert.ok(outcome('hmoNotCovered').benefits?.some((b) => b.coverageStatus === 'Not Covered'));
  assert.equal(outcome('inactivePlan').planActive, false);
  assert.equal(outcome('aaaRejection').status, 'FAILED');
  assert.equal(outcome('aaaRejection').errors?.[0]?.code, '67');
  assert.equal(outcome('payerNotSupported').errors?.[0]?.code, 'SH01');
});

test('the document shows each scenario as a request example and as a status example', async () => {
  const doc = (await client(svc.url).get('/openapi.json')).body;
  const requests = doc.paths['/api/eligibility'].post.requestBody.content['application/json'].examples;
  const results =
    doc.paths['/api/eligibility/{id}/status'].get.responses['200'].content['application/json'].examples;
  const recorded = recordedExamples();
  for (const name of Object.keys(EXAMPLE_SCENARIOS) as ExampleName[]) {
    assert.deepEqual(requests[name].value, EXAMPLE_SCENARIOS[name].request);
    assert.deepEqual(results[name].value, recorded[name]?.result);
  }
  assert.equal(results.inProgress.value.status, 'IN_PROGRESS');
});
