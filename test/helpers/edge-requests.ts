/**
 * Submit requests that are valid at the edges of every field's domain: longest and shortest names in
 * every script and punctuation the API accepts, the oldest and newest dates, every service type code,
 * both provider shapes. Seeded, so a failure can be replayed. Used to prove that what the API accepts the
 * 270 builder can write, and that every accepted check reaches a final status.
 */
import { SERVICE_TYPE_CODES } from '../../src/x12/service-type-codes.ts';

export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Letters from several scripts, astral ones included (two UTF-16 units, one character). */
const LETTERS = ['A', 'z', 'É', 'ß', 'Ø', 'Ж', 'λ', 'ע', 'ب', '中', 'ー', '𝒜', '𠀋', 'é'];
const NAME_PUNCTUATION = [' ', '.', ',', "'", '&', '/', '(', ')', '#', '-'];
const SERVICE_CODES = Object.keys(SERVICE_TYPE_CODES);

type Pick = <T>(items: readonly T[]) => T;

function name(r: () => number, pick: Pick, max: number): string {
  const length = r() < 0.4 ? max : r() < 0.5 ? 1 : 1 + Math.floor(r() * max);
  let out = pick(LETTERS);
  while ([...out].length < length) out += r() < 0.15 ? pick(NAME_PUNCTUATION) : pick(LETTERS);
  // A name may end in punctuation, but not in a space the builder would trim to a shorter value.
  return out.endsWith(' ') ? `${out.slice(0, -1)}A` : out;
}

function date8(r: () => number, from: Date, to: Date): string {
  const edge = r();
  const t =
    edge < 0.3
      ? from.getTime()
      : edge < 0.6
        ? to.getTime()
        : from.getTime() + r() * (to.getTime() - from.getTime());
  return new Date(t).toISOString().slice(0, 10).replaceAll('-', '');
}

function memberId(r: () => number, pick: Pick): string {
  const length = r() < 0.4 ? 80 : 1 + Math.floor(r() * 80);
  const chars = 'ABCXYZabcxyz0123456789-';
  let out = pick([...'ABZ09']);
  while (out.length < length) out += pick([...chars]);
  return out;
}

export function edgeRequests(seed: number, count: number, today = new Date()): object[] {
  const r = rng(seed);
  const pick: Pick = (items) => items[Math.floor(r() * items.length)]!;
  const out: object[] = [];
  for (let i = 0; i < count; i++) {
    const person = r() < 0.5;
    const provider = person
      ? {
          firstName: name(r, pick, 35),
          lastName: name(r, pick, 60),
          npi: '1234567893',
          providerType: 'provider',
        }
      : {
          organizationName: name(r, pick, 60),
          npi: '1234567893',
          providerType: pick(['facility', 'provider']),
        };
    const subscriber: Record<string, string> = {
      memberId: memberId(r, pick),
      firstName: name(r, pick, 35),
      lastName: name(r, pick, 60),
      dateOfBirth: date8(r, new Date(Date.UTC(1900, 0, 1)), today),
    };
    if (r() < 0.5) subscriber.middleName = name(r, pick, 25);
    if (r() < 0.5) subscriber.gender = pick(['M', 'F', 'U']);
    const request: Record<string, unknown> = { tradingPartnerServiceId: 'SANDBOX', provider, subscriber };
    if (r() < 0.8) {
      const encounter: Record<string, unknown> = {};
      if (r() < 0.7) {
        const n = r() < 0.3 ? 10 : 1 + Math.floor(r() * 10);
        encounter.serviceTypeCodes = Array.from({ length: n }, () => pick(SERVICE_CODES));
      }
      if (r() < 0.7) {
        encounter.dateOfService = date8(r, new Date(Date.UTC(1900, 0, 1)), new Date(Date.UTC(2099, 11, 31)));
      }
      request.encounter = encounter;
    }
    out.push(request);
  }
  return out;
}
