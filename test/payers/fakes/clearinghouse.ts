/**
 * A fake clearinghouse for tests and benches: one API-key account with many payers behind it (`CH0001`…),
 * speaking the x12-json protocol (`POST {"x12": "<270>"}` → `{"x12": "<271>"}`). It enforces the
 * account's limits as a real clearinghouse does (a request beyond the concurrency limit or the rate gets a
 * 429 with Retry-After), routes each 270 by its payer id, answers as that payer reads service type codes,
 * can be taken down (503) for failover tests, and counts everything a test or bench wants to assert.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  answeredCodes,
  type ClearinghousePayer,
  clearinghousePayers,
  route270,
  type SearchableMember,
  type StcBehaviour,
  searchFor,
  write271,
  writeNotFound271,
} from './clearinghouse-271.ts';
import { listen, pause, readBody, reply } from './server.ts';
import { check270, reject999 } from './x12.ts';

export {
  type ClearinghousePayer,
  type SearchableMember,
  STC_BEHAVIOURS,
  type StcBehaviour,
} from './clearinghouse-271.ts';
export {
  type ClearinghousePayersFileOptions,
  clearinghousePayersFile,
  type PayersFileJson,
  STRATEGY_FOR,
  type StcStrategy,
} from './clearinghouse-file.ts';

export const CLEARINGHOUSE_API_KEY = 'fake-clearinghouse-key';

export interface ClearinghouseFakeOptions {
  /** The account's key, sent bare in `Authorization` (Stedi's form). Default CLEARINGHOUSE_API_KEY. */
  apiKey?: string;
  /** Payers behind the account; default 1 000. */
  payers?: number;
  /** Behaviour per payer id, over the one its index gives. */
  behaviours?: Record<string, StcBehaviour>;
  /** Requests the account may have in flight; one more gets a 429. Default 5. */
  concurrency?: number;
  /** Requests admitted per rolling second; one more gets a 429. Default: no rate limit. */
  ratePerSecond?: number;
  /** Retry-After of a 429, seconds; default 1. */
  retryAfterSeconds?: number;
  /** Time each admitted request takes before its answer; default 0 (benches use 50). */
  latencyMs?: number;
  now?: () => Date;
  /**
   * Demographic-search mode: the people its payers know. A 270 without a member id finds the one member of
   * that payer with its first name, last name and date of birth (answered with the member id in 2100C), or
   * answers AAA 75; with no members every such search is AAA 75. 270s with a member id are not affected.
   */
  members?: readonly SearchableMember[];
}

/** One request that reached the account's limits, and what came of it. */
export interface ClearinghouseCall {
  payerId?: string;
  /** Service type codes of each EQ segment of the 270. */
  eq: string[][];
  /** Codes the payer answered (empty when the 270 was rejected). */
  answered: string[];
  status: 200 | 429;
  /** 999: the 270 was rejected (unknown payer or a broken envelope). */
  answer?: '271' | '999';
}

export interface ClearinghouseStats {
  /** Every POST to the API, whatever came of it. */
  calls: number;
  /** 200 answers (a 271 or a 999) per payer id. */
  perPayer: Map<string, number>;
  /** 429 answers: over the concurrency limit, and over the rate. */
  tooManyRequests: number;
  concurrencyRejections: number;
  rateRejections: number;
  unauthorized: number;
  /** 503 answers while down. */
  unavailable: number;
  /** The most requests seen in flight at once, counting the one arriving (a 429'd one too). */
  maxConcurrent: number;
  /** Requests in flight now. */
  inFlight: number;
  /** Sum of the admitted requests' times in the fake (ms): over the elapsed time, the mean concurrency. */
  busyMs: number;
  /** The service type codes each 270 asked (all EQ segments in order), one entry per request that had a 270. */
  codesPerCall: string[][];
  /** Details of every request that reached the limits. */
  log: ClearinghouseCall[];
}

export interface ClearinghouseFake {
  url: string;
  apiKey: string;
  payers: readonly ClearinghousePayer[];
  payer(id: string): ClearinghousePayer | undefined;
  stats: ClearinghouseStats;
  /** true: every request gets a 503 until set back to false. */
  setDown(down: boolean): void;
  setBehaviour(payerId: string, behaviour: StcBehaviour): void;
  setLatency(ms: number): void;
  /**
   * Admitted requests wait, holding their place in the concurrency limit, until the returned function is
   * called: a test fills the account deterministically, without relying on a latency being long enough.
   */
  hold(): () => void;
  resetStats(): void;
  close(): Promise<void>;
}

function emptyStats(): ClearinghouseStats {
  return {
    calls: 0,
    perPayer: new Map(),
    tooManyRequests: 0,
    concurrencyRejections: 0,
    rateRejections: 0,
    unauthorized: 0,
    unavailable: 0,
    maxConcurrent: 0,
    inFlight: 0,
    busyMs: 0,
    codesPerCall: [],
    log: [],
  };
}

const json = (res: ServerResponse, status: number, body: unknown, headers = {}) =>
  reply(res, status, 'application/json', JSON.stringify(body), headers);

export async function startClearinghouseFake(
  options: ClearinghouseFakeOptions = {},
): Promise<ClearinghouseFake> {
  const apiKey = options.apiKey ?? CLEARINGHOUSE_API_KEY;
  const payers = clearinghousePayers(options.payers ?? 1_000, options.behaviours);
  const byId = new Map(payers.map((p) => [p.id, p]));
  const concurrency = options.concurrency ?? 5;
  const retryAfter = String(options.retryAfterSeconds ?? 1);
  const now = () => options.now?.() ?? new Date();
  let latencyMs = options.latencyMs ?? 0;
  let gate: Promise<void> | undefined;
  let down = false;
  let stats = emptyStats();
  let controlNumber = 0;
  /** Arrival times (ms) of the requests admitted in the last second, oldest first. */
  const admitted: number[] = [];

  /** null when admitted; else which limit refused it. */
  const limitHit = (): 'concurrency' | 'rate' | null => {
    if (stats.inFlight >= concurrency) return 'concurrency';
    if (options.ratePerSecond !== undefined) {
      const t = Date.now();
      while (admitted.length && admitted[0]! <= t - 1_000) admitted.shift();
      if (admitted.length >= options.ratePerSecond) return 'rate';
      admitted.push(t);
    }
    return null;
  };

  const answer = async (x12: string, call: ClearinghouseCall, res: ServerResponse) => {
    const routed = route270(x12);
    call.eq = routed?.eq ?? [];
    stats.codesPerCall.push(call.eq.flat());
    const payer = byId.get(routed?.payerId ?? '');
    call.payerId = payer?.id ?? routed?.payerId;
    if (call.payerId) stats.perPayer.set(call.payerId, (stats.perPayer.get(call.payerId) ?? 0) + 1);
    if (gate) await gate;
    if (!(await pause(latencyMs, res))) return;
    const envelope = { controlNumber: ++controlNumber, now: now() };
    // An unknown payer id fails check270's NM109 comparison: the clearinghouse's front end answers a 999.
    const checked = check270(x12, payer?.id ?? '');
    if (!payer || checked.problems.length) {
      call.answer = '999';
      return json(res, 200, { x12: reject999(checked, envelope.now) });
    }
    const search = searchFor(x12, payer.id, options.members ?? []);
    call.answer = '271';
    if (search && 'notFound' in search)
      return json(res, 200, { x12: writeNotFound271(x12, payer, envelope) });
    call.answered = answeredCodes(payer.behaviour, call.eq);
    json(res, 200, { x12: write271(x12, payer, call.answered, envelope, search?.found) });
  };

  const api = async (req: IncomingMessage, res: ServerResponse) => {
    stats.calls++;
    const raw = await readBody(req);
    if (req.headers.authorization !== apiKey) {
      stats.unauthorized++;
      return json(res, 401, { message: 'Unauthorized' });
    }
    if (down) {
      stats.unavailable++;
      return json(res, 503, { message: 'Service Unavailable' });
    }
    let x12: unknown;
    try {
      x12 = (JSON.parse(raw.toString('utf8')) as { x12?: unknown }).x12;
    } catch {
      x12 = undefined;
    }
    if (typeof x12 !== 'string') return json(res, 400, { message: 'Invalid request body' });
    stats.maxConcurrent = Math.max(stats.maxConcurrent, stats.inFlight + 1);
    const call: ClearinghouseCall = { eq: [], answered: [], status: 200 };
    stats.log.push(call);
    const hit = limitHit();
    if (hit) {
      call.status = 429;
      const routed = route270(x12);
      call.eq = routed?.eq ?? [];
      call.payerId = routed?.payerId;
      stats.tooManyRequests++;
      if (hit === 'rate') stats.rateRejections++;
      else stats.concurrencyRejections++;
      return json(res, 429, { message: 'Too Many Requests' }, { 'retry-after': retryAfter });
    }
    stats.inFlight++;
    const admitted = performance.now();
    try {
      await answer(x12, call, res);
    } finally {
      stats.inFlight--;
      stats.busyMs += performance.now() - admitted;
    }
  };

  const server = await listen(async (req, res) => {
    if (req.method === 'POST' && req.url === '/x12') return api(req, res);
    reply(res, 404, 'text/plain', 'Not Found');
  });
  return {
    url: `${server.origin}/x12`,
    apiKey,
    payers,
    payer: (id) => byId.get(id),
    get stats() {
      return stats;
    },
    setDown: (value) => {
      down = value;
    },
    setBehaviour: (payerId, behaviour) => {
      const payer = byId.get(payerId);
      if (!payer) throw new Error(`the fake clearinghouse has no payer ${payerId}`);
      payer.behaviour = behaviour;
    },
    setLatency: (ms) => {
      latencyMs = ms;
    },
    hold: () => {
      let release = () => {};
      gate = new Promise<void>((resolve) => {
        release = () => {
          gate = undefined;
          resolve();
        };
      });
      return release;
    },
    resetStats: () => {
      stats = { ...emptyStats(), inFlight: stats.inFlight };
    },
    close: server.close,
  };
}
