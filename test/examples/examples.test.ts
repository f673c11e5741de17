/**
 * Every program in examples/ runs here against a started service, so none of them can rot: curl.sh,
 * node-poll.ts and python/poll.py submit and poll a sandbox check to its end; webhook-receiver.ts and
 * python/webhook_receiver.py receive a real signed delivery, and refuse tampered and replayed ones. curl and
 * python3 must be installed: when one is missing these tests fail and say so, they are never skipped.
 * fhir-check.ts makes the FHIR round trip (docs/fhir.md) for a sandbox member.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import { projectPath } from '../../src/paths.ts';
import { setWebhookSecret, setWebhookUrl } from '../../src/webhooks/settings.ts';
import { signWebhook } from '../../src/webhooks/sign.ts';
import { eventually } from '../helpers/eventually.ts';
import { member } from '../helpers/members.ts';
import { client, sandboxRequest, startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
let secret: string;
const children: ChildProcess[] = [];

before(async () => {
  for (const [tool, args] of [
    ['curl', ['--version']],
    ['python3', ['--version']],
  ] as const) {
    try {
      execFileSync(tool, args, { stdio: 'ignore' });
    } catch {
      throw new Error(
        `${tool} is not installed: the examples test needs it (apt-get install ${tool === 'curl' ? 'curl' : 'python3'})`,
      );
    }
  }
  svc = await startTestService();
  const set = await setWebhookSecret(svc.service.store.db, svc.service.box, svc.organizationId, {
    generate: true,
  });
  assert.ok(set.ok);
  secret = set.value!;
});
after(async () => {
  for (const child of children) child.kill();
  await svc.stop();
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs an example to its end with the service's URL and key in its environment. */
async function run(command: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  const child = spawn(command, args, {
    cwd: projectPath(),
    env: { ...process.env, ELIG_URL: svc.url, ELIG_API_KEY: svc.apiKey, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

const POLLERS: [name: string, command: string, args: string[]][] = [
  ['curl.sh', 'bash', ['examples/curl.sh']],
  ['node-poll.ts', process.execPath, ['--import', 'tsx', 'examples/node-poll.ts']],
  ['python/poll.py', 'python3', ['examples/python/poll.py']],
];

for (const [name, command, args] of POLLERS) {
  test(`${name} submits a sandbox check, polls it and prints the finished check`, async () => {
    const { code, stdout, stderr } = await run(command, args);
    assert.equal(code, 0, stderr);
    const id = /submitted check ([0-9a-f-]{36})/.exec(stderr)?.[1];
    assert.ok(id, stderr);
    const printed = JSON.parse(stdout);
    assert.equal(printed.id, id);
    assert.equal(printed.status, 'COMPLETED');
    // The printed result is the service's own answer for that check.
    const status = await client(svc.url, svc.apiKey).get(`/api/eligibility/${id}/status`);
    assert.equal(status.body.status, 'COMPLETED');
    if (name === 'node-poll.ts') assert.equal(printed.benefits.length, 7);
    else assert.deepEqual(printed, status.body);
  });

  test(`${name} exits 1 with the error's code when the key is wrong`, async () => {
    const { code, stdout, stderr } = await run(command, args, { ELIG_API_KEY: 'elig_test_wrong' });
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.match(stderr, /401/);
    assert.match(stderr, /UnauthorizedException/);
  });
}

test('fhir-check.ts submits a CoverageEligibilityRequest, polls the search and prints the response', async () => {
  const { code, stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'examples/fhir-check.ts']);
  assert.equal(code, 0, stderr);
  const id = /submitted request ([0-9a-f-]{36})/.exec(stderr)?.[1];
  assert.ok(id, stderr);
  const printed = JSON.parse(stdout);
  assert.deepEqual([printed.id, printed.outcome, printed.inforce], [id, 'complete', true]);
  const mh = printed.items.find((i: any) => i.serviceType === 'Mental Health' && i.unit === 'individual');
  assert.deepEqual([mh.network, mh.authorizationRequired], ['in', true]);
  assert.deepEqual(mh.benefits.Copay, { allowed: 25 });
  assert.deepEqual(mh.benefits.Deductible, { allowed: 1500, used: 1000 });
  // The check is an ordinary one: the JSON API reads it under the same id.
  const status = await client(svc.url, svc.apiKey).get(`/api/eligibility/${id}/status`);
  assert.equal(status.body.status, 'COMPLETED');
});

test('fhir-check.ts exits 1 with the OperationOutcome when the key is wrong', async () => {
  const { code, stdout, stderr } = await run(
    process.execPath,
    ['--import', 'tsx', 'examples/fhir-check.ts'],
    {
      ELIG_API_KEY: 'elig_test_wrong',
    },
  );
  assert.equal(code, 1);
  assert.equal(stdout, '');
  assert.match(stderr, /401 OperationOutcome: login/);
});

/** Starts a receiver example and waits for the URL it prints. */
async function startReceiver(command: string, args: string[]) {
  const child = spawn(command, args, {
    cwd: projectPath(),
    env: { ...process.env, PORT: '0', WEBHOOK_SECRET: secret },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: string[] = [];
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => lines.push(...d.toString('utf8').split('\n').filter(Boolean)));
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d;
  });
  const url = await eventually(
    () => {
      if (child.exitCode !== null) throw new Error(`the receiver exited: ${stderr}`);
      return lines.map((l) => /^listening on (\S+)$/.exec(l)?.[1]).find(Boolean);
    },
    { what: 'the receiver to listen' },
  );
  return { child, lines, url };
}

/** A POST signed as the service signs one (src/webhooks/sign.ts), with parts to spoil. */
function post(url: string, opts: { id: string; body?: string; signedBody?: string; timestamp?: number }) {
  const body = opts.body ?? JSON.stringify({ id: opts.id, status: 'COMPLETED' });
  const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
  const signature = signWebhook({ secret, timestamp, body: opts.signedBody ?? body });
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-webhook-id': opts.id,
      'x-webhook-event': 'eligibility.completed',
      'x-webhook-timestamp': String(timestamp),
      'x-webhook-signature': signature,
    },
    body,
  });
}

const RECEIVERS: [name: string, command: string, args: string[]][] = [
  ['webhook-receiver.ts', process.execPath, ['--import', 'tsx', 'examples/webhook-receiver.ts']],
  ['python/webhook_receiver.py', 'python3', ['examples/python/webhook_receiver.py']],
];

for (const [name, command, args] of RECEIVERS) {
  test(`${name} verifies a real delivery, answers a retry as a duplicate, refuses forgeries and replays`, async () => {
    const { child, lines, url } = await startReceiver(command, args);
    const db = svc.service.store.db;
    assert.ok((await setWebhookUrl(db, svc.organizationId, url, { allowPrivate: true })).ok);
    const accepted = await client(svc.url, svc.apiKey).post(
      '/api/eligibility',
      sandboxRequest(member('SBX1000002')),
    );
    const checkId = accepted.body.id;
    const verified = await eventually(
      () => lines.find((l) => l.startsWith('verified eligibility.completed') && l.includes(checkId)),
      { timeoutMs: 20_000, what: `${name} to verify the delivery of ${checkId}` },
    );
    assert.match(verified, new RegExp(`: check ${checkId} COMPLETED$`));

    const id = `evt-${name}`;
    assert.equal((await post(url, { id })).status, 200);
    assert.equal((await post(url, { id })).status, 200, 'a retry is acknowledged');
    // What a receiver prints reaches this process through a pipe, maybe after its answer did.
    const printed = (line: string) =>
      eventually(() => lines.includes(line), { what: `${name} to print "${line}"` });
    await printed(`duplicate ${id}: already processed`);
    const tampered = await post(url, {
      id: 'evt-tampered',
      signedBody: '{"id":"x","status":"FAILED"}',
      body: '{"id":"x","status":"COMPLETED"}',
    });
    assert.equal(tampered.status, 401);
    const replayed = await post(url, { id: 'evt-old', timestamp: Math.floor(Date.now() / 1000) - 600 });
    assert.equal(replayed.status, 401);
    await eventually(() => lines.filter((l) => l.startsWith('rejected')).length === 2, {
      what: `${name} to print two rejections`,
    });
    assert.ok(!lines.some((l) => l.includes('evt-tampered') || l.includes('evt-old')));
    // Nothing a receiver prints names the patient.
    assert.ok(!lines.join('\n').includes('SMITH'));
    child.kill();
    await setWebhookUrl(db, svc.organizationId, null, { allowPrivate: true });
  });
}
