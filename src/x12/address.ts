/**
 * Setting the result's fields from elements, and the address of a 2100 or 2120 loop (N3/N4) read that way.
 * An element without a value leaves its field out, as everywhere in the result: absent, never ''.
 */
import type { Address } from '../contract/check-response.ts';
import type { X12Loop } from './loops.ts';
import type { X12Tokens } from './tokenizer.ts';

/**
 * Sets `target[field]` to an element's value when it has one. Small enough for V8 to inline at each call,
 * where the field name is a constant, so every store stays a fast named-property store: a table-driven copy
 * (element → field pairs walked in a loop) made the stores keyed and cost about 6 % of parse + interpret.
 */
export function setIfPresent<T extends object, K extends keyof T>(target: T, field: K, value: string): void {
  if (value) (target as Record<K, string>)[field] = value;
}

/**
 * The address in a loop's N3/N4 segments (a 2100 name loop or a 2120 related entity); undefined when they
 * carry nothing. `subdivision` reads N4-07 (the 2100 loops' JSON has it, related entities' has not).
 */
export function readAddress(
  t: X12Tokens,
  loop: X12Loop | undefined,
  options: { subdivision: boolean },
): Address | undefined {
  if (loop === undefined) return undefined;
  const address: Address = {};
  for (const i of loop.segments) {
    const id = t.segmentId(i);
    if (id === 'N3') {
      setIfPresent(address, 'address1', t.value(i, 1));
      setIfPresent(address, 'address2', t.value(i, 2));
    } else if (id === 'N4') {
      setIfPresent(address, 'city', t.value(i, 1));
      setIfPresent(address, 'state', t.value(i, 2));
      setIfPresent(address, 'postalCode', t.value(i, 3));
      setIfPresent(address, 'countryCode', t.value(i, 4));
      if (options.subdivision) setIfPresent(address, 'countrySubDivisionCode', t.value(i, 7));
    }
  }
  return Object.keys(address).length ? address : undefined;
}
