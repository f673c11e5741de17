/**
 * Asks a running service the sandbox scenarios of the OpenAPI examples (src/api/openapi-examples.ts) and
 * returns its answers: what `npm run docs:examples` records and test/api/openapi.examples.test.ts compares.
 */
import { EXAMPLE_SCENARIOS, type ExampleName, type RecordedExample } from '../../src/api/openapi-examples.ts';
import { eventually } from './eventually.ts';
import { client } from './service.ts';

export async function askSandboxScenarios(
  url: string,
  apiKey: string,
): Promise<Record<ExampleName, RecordedExample>> {
  const api = client(url, apiKey);
  const names = Object.keys(EXAMPLE_SCENARIOS) as ExampleName[];
  const answers = await Promise.all(
    names.map(async (name) => {
      const submitted = await api.post('/api/eligibility', EXAMPLE_SCENARIOS[name].request);
      if (submitted.status !== 202) throw new Error(`${name}: submit answered ${submitted.status}`);
      const result = await eventually(
        async () => {
          const res = await api.get(`/api/eligibility/${submitted.body.id}/status`);
          return res.body.status !== 'IN_PROGRESS' && res.body;
        },
        { what: `${name} to finish` },
      );
      return [name, { accepted: submitted.body, result }] as const;
    }),
  );
  return Object.fromEntries(answers) as Record<ExampleName, RecordedExample>;
}

/**
 * What differs between two runs of the same scenario and says nothing about the answer: the check's id, the
 * trace and control numbers the service makes up, and the raw X12 whose envelope carries dates and those
 * numbers. Replaced by placeholders on both sides of a comparison.
 */
export function withoutRunValues(answer: unknown): unknown {
  return JSON.parse(JSON.stringify(answer), (key, value) => {
    if (key === 'id' && typeof value === 'string') return '<id>';
    if (key === 'x12' && typeof value === 'string') return '<x12>';
    if ((/trace/i.test(key) || key === 'referenceIdentification') && typeof value === 'string')
      return '<trace>';
    return value;
  });
}
