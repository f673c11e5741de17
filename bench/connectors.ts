/**
 * bench/connectors: what each gateway connector adds to a check, against its local fake at zero latency
 * (loopback only), next to a bare HTTP round trip to the same fake measured in the same run.
 *
 * - check = build270 + connector.send (envelope written, answer read under the cap and checked) + parse271.
 * - bare = one undici POST of the very bytes a connector sends for a check (pre-built once) to the same
 *   fake endpoint, with the same per-call AbortSignal, the whole answer read as text. The fake does the
 *   same work for both, so the difference is the connector's own work plus build270 and parse271.
 * - ratio = bare p50 / check p50, one at a time (1.0 = nothing added; target >= 0.7). Medians, because
 *   the machine is shared; means are printed beside them. Blocks of bare and check calls alternate so
 *   load from elsewhere hits both alike.
 * - Then 64 checks in flight (and 64 bare calls): checks/s and p99.
 * The fakes answer a fixed 271 (they check the envelope, not the 270) so their own X12 work is not measured.
 */
import { request } from 'undici';
import type { GatewayConnector } from '../src/payers/connector-deps.ts';
import type { CoreRequest } from '../src/payers/core/fields.ts';
import { createCoreMimeConnector, createCoreSoapConnector } from '../src/payers/core/index.ts';
import { mimeFields } from '../src/payers/core/mime.ts';
import { SOAP_CONTENT_TYPE, soapEnvelope } from '../src/payers/core/soap.ts';
import { createGatewayAgent } from '../src/payers/http.ts';
import { createX12JsonConnector } from '../src/payers/x12-json/index.ts';
import { parse271 } from '../src/x12/parse271.ts';
import { startCoreMimeFake } from '../test/payers/fakes/core-mime.ts';
import { startCoreSoapFake } from '../test/payers/fakes/core-soap.ts';
import { answer271 } from '../test/payers/fakes/x12.ts';
import { startX12JsonFake } from '../test/payers/fakes/x12-json.ts';
import { deps, inquiry, PAYER_ID, ref, SECRETS, SENDER_ID, TRACE } from '../test/payers/gateway-helpers.ts';

const SEQUENTIAL = Number(process.env.BENCH_CONNECTOR_CHECKS ?? 2_000);
const CONCURRENT = Number(process.env.BENCH_CONNECTOR_CONCURRENT_CHECKS ?? 4_000);
const IN_FLIGHT = 64;
const BLOCK = 100;
const PHASE_LIMIT_MS = 20_000;

interface Subject {
  name: string;
  connector: GatewayConnector;
  url: string;
  /** The bytes and headers the connector sends for one check. */
  bare: { headers: Record<string, string>; body: string | Buffer };
  clear(): void;
  close(): Promise<void>;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

/** Runs `op` up to `count` times with `inFlight` at once, within the phase time limit; latencies in ms. */
async function drive(count: number, inFlight: number, op: () => Promise<void>, into: number[] = []) {
  const started = performance.now();
  let issued = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (issued < count && performance.now() - started < PHASE_LIMIT_MS) {
        issued++;
        const t = performance.now();
        await op();
        into.push(performance.now() - t);
      }
    }),
  );
  return { latencies: into, perSecond: issued / ((performance.now() - started) / 1000) };
}

function summary(latencies: number[]) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), mean };
}

async function subjects(fixed271: string): Promise<Subject[]> {
  const core = { payerId: PAYER_ID, senderId: SENDER_ID, receiverId: PAYER_ID, fixedAnswer: fixed271 };
  const creds = { username: SECRETS.CORE_USER!, password: SECRETS.CORE_PASSWORD! };
  const soap = await startCoreSoapFake({ ...core, ...creds });
  const mime = await startCoreMimeFake({ ...core, ...creds });
  const json = await startX12JsonFake({
    payerId: PAYER_ID,
    auth: { type: 'api-key', key: SECRETS.STEDI_KEY! },
    fixedAnswer: fixed271,
  });
  const x12_270 = inquiry();
  const coreRequest: CoreRequest = {
    PayloadType: 'X12_270_Request_005010X279A1',
    ProcessingMode: 'RealTime',
    PayloadID: crypto.randomUUID(),
    TimeStamp: '2026-11-24T10:15:30Z',
    SenderID: SENDER_ID,
    ReceiverID: PAYER_ID,
    CORERuleVersion: '2.2.0',
    Payload: x12_270,
  };
  const mimeRequest = mimeFields(coreRequest, creds);
  const coreAuth = { username: ref('CORE_USER'), password: ref('CORE_PASSWORD') };
  return [
    {
      name: 'caqh-core-soap',
      connector: createCoreSoapConnector({ type: 'caqh-core-soap', url: soap.url, ...coreAuth }, deps()),
      url: soap.url,
      bare: { headers: { 'content-type': SOAP_CONTENT_TYPE }, body: soapEnvelope(coreRequest, creds) },
      clear: () => (soap.requests.length = 0),
      close: soap.close,
    },
    {
      name: 'caqh-core-mime',
      connector: createCoreMimeConnector({ type: 'caqh-core-mime', url: mime.url, ...coreAuth }, deps()),
      url: mime.url,
      bare: { headers: { 'content-type': mimeRequest.contentType }, body: mimeRequest.body },
      clear: () => (mime.requests.length = 0),
      close: mime.close,
    },
    {
      name: 'x12-json',
      connector: createX12JsonConnector(
        { type: 'x12-json', url: json.url, auth: { type: 'api-key', key: ref('STEDI_KEY') } },
        deps(),
      ),
      url: json.url,
      bare: {
        headers: { 'content-type': 'application/json', authorization: SECRETS.STEDI_KEY! },
        body: JSON.stringify({ x12: x12_270 }),
      },
      clear: () => (json.requests.length = 0),
      close: json.close,
    },
  ];
}

export async function run(): Promise<void> {
  const all = await subjects(answer271(inquiry(), new Date()));
  const bareAgent = createGatewayAgent();
  console.log(
    `\nbench/connectors: loopback fakes, zero latency; ${SEQUENTIAL} checks one at a time, ${CONCURRENT} at ${IN_FLIGHT} in flight`,
  );
  console.log(
    'ratio = bare round trip p50 / check p50 (build270 + send + parse271), one at a time; target >= 0.7',
  );
  for (const s of all) {
    const bare = async () => {
      const res = await request(s.url, {
        method: 'POST',
        ...s.bare,
        dispatcher: bareAgent,
        signal: AbortSignal.timeout(10_000),
      });
      await res.body.text();
    };
    // The parts of a check, one at a time, to show where its time goes.
    const parts = { build: [] as number[], send: [] as number[], parse: [] as number[] };
    const check = async () => {
      const t0 = performance.now();
      const x12_270 = inquiry();
      const t1 = performance.now();
      const x12 = await s.connector.send(x12_270, { signal: AbortSignal.timeout(10_000) });
      const t2 = performance.now();
      if (parse271(x12, { traceNumber: TRACE }).kind !== '271') throw new Error('bench: no 271');
      parts.build.push(t1 - t0);
      parts.send.push(t2 - t1);
      parts.parse.push(performance.now() - t2);
    };
    await drive(200, 1, bare);
    await drive(200, 1, check);
    const bareTimes: number[] = [];
    const checkTimes: number[] = [];
    for (let done = 0; done < SEQUENTIAL; done += BLOCK) {
      await drive(BLOCK, 1, bare, bareTimes);
      await drive(BLOCK, 1, check, checkTimes);
      s.clear();
    }
    const b = summary(bareTimes);
    const c = summary(checkTimes);
    const [build, sent, parsed] = [parts.build, parts.send, parts.parse].map((p) => summary(p).p50) as [
      number,
      number,
      number,
    ];
    const bareLoad = await drive(CONCURRENT, IN_FLIGHT, bare);
    s.clear();
    const checkLoad = await drive(CONCURRENT, IN_FLIGHT, check);
    s.clear();
    const bl = summary(bareLoad.latencies);
    const cl = summary(checkLoad.latencies);
    const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
    console.log(
      `${s.name.padEnd(15)} one at a time: check p50 ${us(c.p50)} (mean ${us(c.mean)}), bare p50 ${us(b.p50)} ` +
        `(mean ${us(b.mean)}); added ${us(c.p50 - b.p50)}/check; ratio ${(b.p50 / c.p50).toFixed(2)}`,
    );
    console.log(
      `${''.padEnd(15)} parts (p50): build270 ${us(build)}, send ${us(sent)} (bare / send ${(b.p50 / sent).toFixed(2)}), parse271 ${us(parsed)}`,
    );
    console.log(
      `${''.padEnd(15)} ${IN_FLIGHT} in flight: ${checkLoad.perSecond.toFixed(0)} checks/s, p99 ${cl.p99.toFixed(1)} ms; ` +
        `bare ${bareLoad.perSecond.toFixed(0)}/s, p99 ${bl.p99.toFixed(1)} ms; throughput ratio ` +
        `${(checkLoad.perSecond / bareLoad.perSecond).toFixed(2)}`,
    );
    await s.connector.close();
    await s.close();
  }
  await bareAgent.destroy();
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
