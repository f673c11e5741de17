/**
 * The embedded store when its disk fails: an `elig serve` child process on PGlite (a child, so that a
 * store that hangs the event loop fails the test instead of hanging the test runner).
 *
 * - Disk full, for real: the data directory is on a small tmpfs (this needs root to mount one; the test
 *   fails, not skips, when it cannot), filled to the last byte.
 * - Read-only (EROFS) and forbidden (EACCES): injected in the child's `fs` layer under the data directory
 *   (test/helpers/fs-fault-preload.mjs explains why not a real read-only mount).
 *
 * In each case submits answer 503 with Retry-After within the budget, /readyz says why it is not ready,
 * the process neither dies nor floods its log, and once the fault clears everything works again without
 * a restart, the checks accepted before it included.
 */

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { eventually } from '../helpers/eventually.ts';
import {
  assertQuietLogs,
  assertRecovered,
  assertUnavailable,
  BUDGET_MS,
  notReady,
  summary,
  timedApi,
} from '../helpers/outage.ts';
import { sandboxRequest } from '../helpers/service.ts';
import { type EligProcess, MEMBERS, spawnElig } from './procs.ts';

const PRELOAD = fileURLToPath(new URL('../helpers/fs-fault-preload.mjs', import.meta.url));

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'elig-pglite-faults-'));
});
after(() => {
  rmSync(root, { recursive: true, force: true });
  console.log(`pglite-faults: ${summary()}`);
});

async function startServe(dataDir: string, env: Record<string, string> = {}) {
  const proc = spawnElig(['serve'], {
    DATABASE_URL: '', // PGlite, also when the suite runs against PostgreSQL
    DATA_DIR: dataDir,
    ELIG_ENV: 'test',
    PORT: '0',
    SANDBOX_LATENCY_MS: '0',
    WORKER_POLL_MS: '200',
    // A check the worker had claimed when the fault struck cannot be finished or released until the store
    // is back; its lease then expires and it is claimed again (the rule for any interrupted check). The
    // default lease (120 s) is far longer than the 15 s assertRecovered gives a check to complete.
    PAYER_TIMEOUT_MS: '2000',
    LEASE_MS: '3000',
    DB_REQUEST_BUDGET_MS: String(BUDGET_MS),
    RATE_LIMIT_SUBMIT: '100000',
    RATE_LIMIT_STATUS: '100000',
    LOG_LEVEL: 'info',
    ...env,
  });
  await proc.ready;
  await eventually(() => /Test API key:\s+(\S+)/.test(proc.stdout), {
    what: 'the first-start banner',
    timeoutMs: 5000,
    intervalMs: 20,
  });
  const url = /API:\s+(http:\/\/\S+)\/api\/eligibility/.exec(proc.stdout)![1]!;
  const api = timedApi(url, /Test API key:\s+(\S+)/.exec(proc.stdout)![1]!);
  return { proc, url, api };
}

async function stop(proc: EligProcess): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill('SIGKILL');
  await proc.exited;
}

const logged = (proc: EligProcess, start: string) => proc.logs().some((l) => l.msg?.startsWith(start));

test('PGlite on a full disk: submits answer 503 at once, reads still work, /readyz says disk full; all recovers when space returns', {
  timeout: 180_000,
}, async () => {
  const mount = join(root, 'disk');
  mkdirSync(mount);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=128m', 'tmpfs', mount], { stdio: 'pipe' });
  } catch (err) {
    throw new Error(
      `this test puts the data directory on a small tmpfs and needs root (CAP_SYS_ADMIN) to mount it: ${(err as { stderr?: Buffer }).stderr ?? err}`,
    );
  }
  let proc: EligProcess | undefined;
  try {
    const started = performance.now();
    const serve = await startServe(join(mount, 'data'));
    proc = serve.proc;
    const { api } = serve;
    const before = await api.submit(sandboxRequest(MEMBERS[0].member));
    assert.equal(before.status, 202);
    assert.equal((await api.ready()).status, 200);

    const filler = join(mount, 'filler');
    const fd = openSync(filler, 'w');
    try {
      const block = Buffer.alloc(1 << 16, 1);
      for (;;) writeSync(fd, block);
    } catch (err) {
      assert.equal((err as NodeJS.ErrnoException).code, 'ENOSPC');
    } finally {
      closeSync(fd);
    }

    // Readiness sees the disk at once; the store samples it at most once a second.
    const ready = await notReady(api.ready);
    assertUnavailable(ready, '/readyz on a full disk');
    assert.equal(ready.body.message, 'Database cannot write: disk full.');
    for (let i = 0; i < 3; i++) {
      assertUnavailable(await api.submit(sandboxRequest(MEMBERS[i]!.member)), `submit ${i} on a full disk`);
    }
    // Reading needs no new space: the check accepted before the fault can still be polled.
    const status = await api.status(before.body.id);
    assert.equal(status.status, 200, JSON.stringify(status.body));

    unlinkSync(filler);
    await assertRecovered(api, before.body.id);
    assertQuietLogs(proc.logs(), performance.now() - started);
    assert.equal(proc.child.exitCode, null, 'the process is still running');
  } finally {
    if (proc) await stop(proc);
    execFileSync('umount', ['-l', mount]);
  }
});

for (const errno of ['EROFS', 'EACCES'] as const) {
  test(`PGlite on a data directory that cannot be written (${errno}): 503 at once, /readyz not ready; reopened when writable again`, {
    timeout: 180_000,
  }, async () => {
    const dataDir = join(root, errno.toLowerCase());
    const faultSwitch = join(root, `${errno}.switch`);
    const started = performance.now();
    const serve = await startServe(dataDir, {
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${PRELOAD}`,
      FS_FAULT_DIR: join(dataDir, 'pg'),
      FS_FAULT_SWITCH: faultSwitch,
    });
    const { proc, api } = serve;
    try {
      const before = await api.submit(sandboxRequest(MEMBERS[0].member));
      assert.equal(before.status, 202);
      await eventually(
        async () => {
          return (await api.status(before.body.id)).body.status === 'COMPLETED';
        },
        { what: 'the first check to complete', timeoutMs: 15_000, intervalMs: 50 },
      );

      writeFileSync(faultSwitch, errno);
      for (let i = 0; i < 3; i++) {
        assertUnavailable(await api.submit(sandboxRequest(MEMBERS[i]!.member)), `submit ${i} (${errno})`);
      }
      const ready = await notReady(api.ready);
      assertUnavailable(ready, `/readyz (${errno})`);
      assert.match(ready.body.message, /^Database cannot write: read-only\.$/);

      // The failed WAL write was a PANIC: the instance was dropped, and is reopened once writable.
      await eventually(() => logged(proc, 'embedded database stopped'), {
        what: 'the store to stop',
        timeoutMs: 5000,
        intervalMs: 50,
      });
      unlinkSync(faultSwitch);
      await eventually(() => logged(proc, 'embedded database reopened'), {
        what: 'the store to reopen',
        timeoutMs: 15_000,
        intervalMs: 50,
      });
      await assertRecovered(api, before.body.id);
      assertQuietLogs(proc.logs(), performance.now() - started);
      assert.equal(proc.child.exitCode, null, 'the process is still running');
    } finally {
      await stop(proc);
    }
  });
}
