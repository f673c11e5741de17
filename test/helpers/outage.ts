/**
 * What the database-fault tests check of every answer during an outage: 503 InternalFailureException with
 * Retry-After, within the service's database budget (DB_REQUEST_BUDGET_MS) plus slack for a shared host.
 */

import assert from 'node:assert/strict';
import { MEMBERS } from '../chaos/procs.ts';
import { eventually } from './eventually.ts';
import { sandboxRequest } from './service.ts';

export const BUDGET_MS = 1500;
export const SLACK_MS = 1000;

export interface Timed {
  status: number;
  body: any;
  retryAfter: string | null;
  ms: number;
}

export async function timedFetch(url: string, init: RequestInit = {}): Promise<Timed> {
  const t0 = performance.now();
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body, retryAfter: res.headers.get('retry-after'), ms: performance.now() - t0 };
}

/** How long each 503 took, by what was asked, for the summary a test file prints. */
export const answered: { what: string; ms: number }[] = [];

export function summary(): string {
  const ms = answered.map((a) => a.ms).sort((a, b) => a - b);
  const slowest = answered.reduce((a, b) => (b.ms > a.ms ? b : a), { what: '-', ms: 0 });
  return `${answered.length} answers 503 with Retry-After; median ${Math.round(ms[ms.length >> 1] ?? 0)} ms, slowest ${Math.round(slowest.ms)} ms (${slowest.what}); budget ${BUDGET_MS} ms`;
}

export function assertUnavailable(r: Timed, what: string, budgetMs = BUDGET_MS): void {
  answered.push({ what, ms: r.ms });
  assert.equal(r.status, 503, `${what}: ${r.status} ${JSON.stringify(r.body)}`);
  assert.equal(r.body.code, 'InternalFailureException', what);
  assert.match(r.retryAfter ?? '', /^\d+$/, `${what}: Retry-After`);
  assert.ok(r.ms < budgetMs + SLACK_MS, `${what} answered in ${Math.round(r.ms)} ms (budget ${budgetMs} ms)`);
}

/** Polls /readyz until it is not ready (readiness is cached for a second) and returns that answer. */
export async function notReady(ready: () => Promise<Timed>, timeoutMs = 10_000): Promise<Timed> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await ready();
    if (r.status !== 200) return r;
    if (Date.now() > deadline) throw new Error(`/readyz still 200 after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A client of the API at `url` with `key`, every call timed. */
export function timedApi(url: string, key: string) {
  const headers = { authorization: `Key ${key}`, 'content-type': 'application/json' };
  return {
    submit: (body: unknown) =>
      timedFetch(`${url}/api/eligibility`, { method: 'POST', headers, body: JSON.stringify(body) }),
    status: (id: string) => timedFetch(`${url}/api/eligibility/${id}/status`, { headers }),
    ready: () => timedFetch(`${url}/readyz`),
  };
}

type TimedApi = ReturnType<typeof timedApi>;

/**
 * The service works end to end again, without a restart: a submit is accepted, /readyz is 200, and both
 * that check and `earlier` (accepted before the fault) complete.
 */
export async function assertRecovered(api: TimedApi, earlier: string): Promise<void> {
  let id = '';
  await eventually(
    async () => {
      const r = await api.submit(sandboxRequest(MEMBERS[1].member));
      id = r.status === 202 ? r.body.id : '';
      return id !== '';
    },
    { what: 'a submit to be accepted again', timeoutMs: 30_000, intervalMs: 250 },
  );
  await eventually(async () => (await api.ready()).status === 200, {
    what: '/readyz 200',
    timeoutMs: 15_000,
    intervalMs: 250,
  });
  for (const check of [earlier, id]) {
    await eventually(
      async () => {
        const r = await api.status(check);
        assert.equal(r.status, 200);
        return r.body.status === 'COMPLETED';
      },
      { what: `check ${check} to complete`, timeoutMs: 15_000, intervalMs: 100 },
    );
  }
}

/**
 * Loops that retry by themselves log an unavailable database at most once per 30 s each (the check worker
 * and the webhook dispatcher each run one), and no log line
 * carries PHI of the sandbox members the tests submit.
 */
export function assertQuietLogs(lines: { msg?: string; component?: unknown }[], elapsedMs: number): void {
  const text = JSON.stringify(lines);
  for (const m of MEMBERS) {
    for (const value of [m.member.memberId, m.member.lastName, m.member.dateOfBirth]) {
      assert.ok(!text.includes(value), 'no PHI in the logs');
    }
  }
  const counts = new Map<string, number>();
  for (const { msg, component } of lines) {
    if (!msg?.endsWith('database unavailable; will retry')) continue;
    const key = `${component}: ${msg}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const allowed = 1 + Math.floor(elapsedMs / 30_000);
  for (const [msg, n] of counts) assert.ok(n <= allowed, `"${msg}" logged ${n} times in ${elapsedMs} ms`);
}
