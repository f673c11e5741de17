/**
 * Test helpers for the sandbox payer: build a 270 with the real builder, send it, and cut the 271 into its
 * HL loops and EB rows with the plain segment reader (independent of the 271 parser).
 */
import type { SandboxOptions } from '../../src/payers/sandbox/index.ts';
import { createSandboxConnector } from '../../src/payers/sandbox/index.ts';
import { build270, type Inquiry270 } from '../../src/x12/build270.ts';
import { readSegments, type Segment } from '../../src/x12/segments.ts';

export interface Person {
  memberId: string;
  firstName: string;
  lastName: string;
  dateOfBirth: string;
}

export const NOW = new Date('2026-03-04T09:07:00Z');

export function inquiryText(
  person: Person,
  traceNumber = 'TRACE0001',
  over: Partial<Inquiry270> = {},
): string {
  return build270(
    {
      payer: { name: 'Sandbox Health Plan', id: 'SANDBOX' },
      provider: { npi: '1234567893', organizationName: 'Test Clinic' },
      subscriber: person,
      traceNumber,
      ...over,
    },
    {
      senderId: 'ELIGSVC',
      receiverId: 'SANDBOX',
      interchangeControlNumber: 4242,
      now: NOW,
      usageIndicator: 'T',
    },
  );
}

export const never = () => new AbortController().signal;

export async function ask(person: Person, options: SandboxOptions = { latencyMs: 0 }, trace?: string) {
  const text = await createSandboxConnector(options).send(inquiryText(person, trace), { signal: never() });
  return { text, ...readSegments(text) };
}

export interface Loops {
  /** 2000A/2100A: HL*..*20 up to the next HL. */
  source: Segment[];
  receiver: Segment[];
  subscriber: Segment[];
  dependents: Segment[][];
}

/** Splits the transaction (BHT..SE exclusive) at each HL by its level code. */
export function loops(segments: Segment[]): Loops {
  const out: Loops = { source: [], receiver: [], subscriber: [], dependents: [] };
  let current: Segment[] | undefined;
  for (const s of segments) {
    if (s.id === 'SE') break;
    if (s.id === 'HL') {
      const level = s.elements[3];
      if (level === '20') current = out.source;
      else if (level === '21') current = out.receiver;
      else if (level === '22') current = out.subscriber;
      else if (level === '23') {
        current = [];
        out.dependents.push(current);
      } else throw new Error('unexpected HL level');
    }
    current?.push(s);
  }
  return out;
}

export interface EbRow {
  /** elements[n] is EBn. */
  eb: string[];
  msg: string[];
  hsd: string[][];
}

/** EB segments of a loop with the HSD and MSG that follow each. */
export function ebRows(loop: Segment[]): EbRow[] {
  const rows: EbRow[] = [];
  for (const s of loop) {
    if (s.id === 'EB') rows.push({ eb: s.elements, msg: [], hsd: [] });
    else if (s.id === 'MSG') rows.at(-1)?.msg.push(s.elements[1]!);
    else if (s.id === 'HSD') rows.at(-1)?.hsd.push(s.elements);
  }
  return rows;
}

export const text = (s: Segment | undefined) => s?.elements.join('*');
