// docs/webhooks.md is for integrators who copy from it: its receiver example is run here against real
// signed deliveries, and its retry table and SSRF suffix list are checked against the code.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { RETRY_DELAYS_SECONDS } from '../../src/webhooks/schedule.ts';
import { sendWebhook } from '../../src/webhooks/send.ts';
import { buildWebhookHeaders } from '../../src/webhooks/sign.ts';
import { checkWebhookUrl } from '../../src/webhooks/ssrf.ts';
import { eventually } from '../helpers/eventually.ts';

const doc = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');

function section(marker: string): string {
  const start = doc.indexOf(marker);
  assert.ok(start >= 0, `marker ${marker} in docs/webhooks.md`);
  return doc.slice(start + marker.length);
}

describe('the copy-paste receiver in docs/webhooks.md', () => {
  const secret = 'whsec_docs_example_secret_0123456789';
  let dir: string;
  let child: ChildProcess;
  let url: string;
  let stdout = '';

  before(async () => {
    const code = /```js\n([\s\S]*?)```/.exec(section('<!-- example: receiver.mjs'))![1]!;
    dir = mkdtempSync(join(tmpdir(), 'elig-receiver-'));
    writeFileSync(join(dir, 'receiver.mjs'), code);
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
    child = spawn(process.execPath, [join(dir, 'receiver.mjs')], {
      env: { PATH: process.env.PATH, PORT: String(port), WEBHOOK_SECRET: secret },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    url = `http://127.0.0.1:${port}/hook`;
    await eventually(
      () =>
        new Promise<boolean>((r) => {
          const s = connect(port, '127.0.0.1', () => {
            s.end();
            r(true);
          }).on('error', () => r(false));
        }),
      { timeoutMs: 5000, intervalMs: 50, what: 'the receiver started' },
    );
  });

  after(() => {
    child?.kill();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const deliver = (options: {
    eventId: string;
    body: string;
    secret?: string;
    previousSecret?: string;
    timestamp?: number;
    tamper?: (h: Record<string, string>) => void;
  }) => {
    const headers = buildWebhookHeaders({
      eventType: 'eligibility.completed',
      eventId: options.eventId,
      timestamp: options.timestamp ?? Math.floor(Date.now() / 1000),
      body: options.body,
      secret: options.secret ?? secret,
      previousSecret: options.previousSecret,
      userAgent: 'docs-test',
    });
    options.tamper?.(headers);
    return sendWebhook({ url, body: options.body, headers, allowPrivate: true, timeoutMs: 5000 });
  };
  const body = (id: string) => JSON.stringify({ id, status: 'COMPLETED', benefits: [] });

  /**
   * The receiver prints each event it processes in order, on one pipe: once the line of a marker event
   * sent now has arrived, so has every line about the deliveries before it.
   */
  let markers = 0;
  const caughtUp = async () => {
    const id = `chk_marker_${++markers}`;
    assert.equal((await deliver({ eventId: `evt_marker_${markers}`, body: body(id) })).outcome, 'delivered');
    await eventually(() => stdout.includes(`check ${id} is COMPLETED`), { what: `the line about ${id}` });
  };

  test('accepts a signed delivery and processes it once, acknowledging the retry', async () => {
    assert.equal((await deliver({ eventId: 'evt_a', body: body('chk_a') })).outcome, 'delivered');
    assert.equal((await deliver({ eventId: 'evt_a', body: body('chk_a') })).outcome, 'delivered');
    await caughtUp();
    assert.equal(stdout.match(/check chk_a is COMPLETED/g)?.length, 1, stdout);
  });

  test('refuses a tampered body, a wrong secret, a missing signature and an old timestamp', async () => {
    const signedFor = body('chk_b');
    const tampered = await sendWebhook({
      url,
      body: signedFor.replace('COMPLETED', 'FAILED'),
      headers: buildWebhookHeaders({
        eventType: 'eligibility.completed',
        eventId: 'evt_b',
        timestamp: Math.floor(Date.now() / 1000),
        body: signedFor,
        secret,
        userAgent: 't',
      }),
      allowPrivate: true,
    });
    assert.deepEqual([tampered.outcome, tampered.status], ['failed', 401]);
    const wrong = await deliver({
      eventId: 'evt_c',
      body: body('chk_c'),
      secret: 'whsec_someone_else_0123456789',
    });
    assert.equal(wrong.status, 401);
    const unsigned = await deliver({
      eventId: 'evt_d',
      body: body('chk_d'),
      tamper: (h) => delete h['X-Webhook-Signature'],
    });
    assert.equal(unsigned.status, 401);
    const old = await deliver({
      eventId: 'evt_e',
      body: body('chk_e'),
      timestamp: Math.floor(Date.now() / 1000) - 400,
    });
    assert.equal(old.status, 401);
    await caughtUp();
    assert.ok(!/chk_[bcde]/.test(stdout), 'nothing refused was processed');
  });

  test('during a roll, a receiver still on the old secret verifies through the previous signature', async () => {
    const rolled = await deliver({
      eventId: 'evt_f',
      body: body('chk_f'),
      secret: 'whsec_brand_new_secret_0123456789',
      previousSecret: secret,
    });
    assert.equal(rolled.outcome, 'delivered');
  });
});

test('the retry table in the docs is the schedule in the code', () => {
  const rows = [...section('<!-- retry table').matchAll(/^\|\s*(\d+)\s*\|([^|]+)\|([^|]+)\|$/gm)];
  const unit: Record<string, number> = { s: 1, min: 60, h: 3600 };
  const seconds = (text: string) =>
    [...text.matchAll(/(\d+) (s|min|h)\b/g)].reduce((sum, m) => sum + Number(m[1]) * unit[m[2]!]!, 0);
  const waits = rows.slice(1).map((r) => seconds(r[2]!));
  assert.deepEqual(waits, RETRY_DELAYS_SECONDS);
  assert.equal(rows.length, RETRY_DELAYS_SECONDS.length + 1, 'one row per attempt');
  let total = 0;
  for (const [i, row] of rows.slice(1).entries()) {
    total += RETRY_DELAYS_SECONDS[i]!;
    assert.ok(Math.abs(seconds(row[3]!) - total) <= 60, `cumulative time of attempt ${row[1]}`);
  }
});

test('every internal suffix the docs list is refused', () => {
  const bullet = /Internal names are refused:[\s\S]*?\n- /.exec(doc)![0];
  const suffixes = [...bullet.matchAll(/`\.([a-z]+)`/g)].map((m) => m[1]!);
  assert.ok(suffixes.length >= 10, suffixes.join());
  for (const suffix of suffixes) {
    assert.equal(checkWebhookUrl(`https://host.${suffix}/hook`, { allowPrivate: false }).ok, false, suffix);
  }
});
