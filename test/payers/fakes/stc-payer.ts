/**
 * A fake payer for the service type code profiles (docs/payers.md "Payer profiles: how each payer is asked").
 * It answers with the sandbox's 271 for the member, cut down to the rows of the codes it reads of the 270,
 * the way real payers differ:
 *   repeat            every code of every EQ
 *   first-repetition  only the first code of each EQ01 (`EQ*30^PT` reads 30)
 *   first-eq          every code of the first EQ only (`EQ*30~EQ*PT` reads 30)
 *   generic-only      answers in full only a 270 that asks `30` alone; any other 270 gets the plan rows
 * Plan-level rows (EB03 `30`) are always answered; a code the plan does not cover is not. A 270 asking a code
 * in `refuse` is answered AAA 15 (required application data missing) for the subscriber.
 */
import type { PayerCallOptions, PayerConnector } from '../../../src/payers/connector.ts';
import { createSandboxConnector } from '../../../src/payers/sandbox/index.ts';
import { readInquiry } from '../../../src/payers/sandbox/inquiry.ts';
import { respond271 } from '../../../src/payers/sandbox/respond271.ts';
import { readSegments } from '../../../src/x12/segments.ts';

export type StcBehaviour = 'repeat' | 'first-repetition' | 'first-eq' | 'generic-only';

export interface StcPayer extends PayerConnector {
  /** The 270s received, in order. */
  readonly received: string[];
}

/** The codes of each EQ of a 270, in order. */
export function eqCodes(x12_270: string): string[][] {
  return readSegments(x12_270)
    .segments.filter((s) => s.id === 'EQ')
    .map((s) => (s.elements[1] ?? '').split('^'));
}

function codesRead(behaviour: StcBehaviour, eqs: string[][]): Set<string> | 'all' {
  switch (behaviour) {
    case 'repeat':
      return new Set(eqs.flat());
    case 'first-repetition':
      return new Set(eqs.map((codes) => codes[0]!));
    case 'first-eq':
      return new Set(eqs[0]);
    case 'generic-only':
      return eqs.flat().every((code) => code === '30') ? 'all' : new Set(['30']);
  }
}

/**
 * The 271 with only the EB rows (and the HSD and MSG after each) whose EB03 has a code read or `30`; SE01
 * recounted.
 */
function keepRows(x12_271: string, read: Set<string>): string {
  const out: string[] = [];
  let keep = true;
  for (const segment of x12_271.split('~\n').filter(Boolean)) {
    const [id, ...elements] = segment.split('*');
    if (id === 'EB') {
      const codes = (elements[2] ?? '').split('^');
      keep = codes.some((code) => code === '30' || read.has(code));
    } else if (id !== 'HSD' && id !== 'MSG') keep = true;
    if (keep) out.push(segment);
  }
  const st = out.findIndex((s) => s.startsWith('ST*'));
  const se = out.findIndex((s) => s.startsWith('SE*'));
  out[se] = `SE*${se - st + 1}*${out[se]!.split('*')[2]}`;
  return out.map((s) => `${s}~\n`).join('');
}

export function createStcPayer(behaviour: StcBehaviour, options: { refuse?: string } = {}): StcPayer {
  const sandbox = createSandboxConnector({ latencyMs: 0 });
  const received: string[] = [];
  return {
    name: `stc-${behaviour}`,
    received,
    async send(x12_270: string, call: PayerCallOptions): Promise<string> {
      received.push(x12_270);
      const eqs = eqCodes(x12_270);
      if (options.refuse && eqs.flat().includes(options.refuse)) {
        const envelope = { controlNumber: 424242, now: new Date(), payerTraceNumber: 'STCREFUSED' };
        return respond271(readInquiry(x12_270), { kind: 'rejected', code: '15' }, envelope);
      }
      const full = await sandbox.send(x12_270, call);
      const read = codesRead(behaviour, eqs);
      return read === 'all' ? full : keepRows(full, read);
    },
  };
}
