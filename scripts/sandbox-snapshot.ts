/**
 * Byte-identity check for refactors: the OpenAPI document and the sandbox's answer to every member with four
 * service-type sets, plus the OpenAPI example scenarios, with ids, times, traces and control numbers
 * normalised. It imports the tree it is run in (the working directory), so one copy of it serves both sides:
 *   git worktree add ../before HEAD~3 && (cd ../before && npm install)
 *   node --import tsx scripts/sandbox-snapshot.ts after.json
 *   (cd ../before && node --import tsx ../main/scripts/sandbox-snapshot.ts ../main/before.json)
 *   cmp before.json after.json
 * The sandbox's silent member times out (PAYER_TIMEOUT_MS 300 here), so a run takes about ten seconds.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { normalizeRun } from './snapshot-normalize.ts';

const root = process.cwd();
const imp = (p: string) => import(pathToFileURL(resolve(root, p)).href);
const { startTestService, client, SANDBOX_PROVIDER } = await imp('test/helpers/service.ts');
const { eventually } = await imp('test/helpers/eventually.ts');
const { MEMBERS } = await imp('src/payers/sandbox/members.ts');
const { EXAMPLE_SCENARIOS } = await imp('src/api/openapi-examples.ts');

const svc = await startTestService({ config: { logLevel: 'error', payerTimeoutMs: 300 } as never });
const api = client(svc.url, svc.apiKey);
const out: Record<string, unknown> = {};
out.openapi = (await api.get('/openapi.json')).body;

const requests: [string, unknown][] = [];
for (const [name, s] of Object.entries(EXAMPLE_SCENARIOS))
  requests.push([`example:${name}`, (s as any).request]);
for (const m of MEMBERS as any[]) {
  for (const stc of [undefined, ['30'], ['98', 'UC'], ['88', 'AL', 'MH']]) {
    const req: any = {
      tradingPartnerServiceId: 'SANDBOX',
      provider: SANDBOX_PROVIDER,
      subscriber: {
        memberId: m.memberId,
        firstName: m.firstName,
        lastName: m.lastName,
        dateOfBirth: m.dateOfBirth,
      },
    };
    if (stc) req.encounter = { serviceTypeCodes: stc, dateOfService: '20260115' };
    requests.push([`${m.memberId}:${stc?.join('+') ?? 'default'}`, req]);
  }
}
await Promise.all(
  requests.map(async ([name, req]) => {
    const sub = await api.post('/api/eligibility', req);
    if (sub.status !== 202) {
      out[name] = { status: sub.status, body: sub.body };
      return;
    }
    const res = await eventually(
      async () => {
        const r = await api.get(`/api/eligibility/${sub.body.id}/status`);
        return r.body.status !== 'IN_PROGRESS' && r.body;
      },
      { what: name, timeoutMs: 60000 },
    );
    out[name] = res;
  }),
);
const ordered: Record<string, unknown> = { openapi: out.openapi };
for (const [name] of requests) ordered[name] = out[name];
await svc.stop();
const text = normalizeRun(JSON.stringify(ordered, null, 1));
writeFileSync(process.argv[2]!, text);
console.log(`${requests.length} answers, ${text.length} bytes`);
