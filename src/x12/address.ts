/**
 * Copying elements into the result's fields, and the address of a 2100 or 2120 loop (N3/N4) read that way.
 * An element without a value leaves its field out, as everywhere in the result: absent, never ''.
 */
import type { Address } from '../contract/check-response.ts';
import type { X12Loop } from './loops.ts';
import type { X12Tokens } from './tokenizer.ts';

/** Element number → field, as pairs in element order: made once per table by `elementFields`. */
export type ElementFields<K extends string> = readonly (readonly [number, K])[];

/**
 * A table of element number → field as the pairs `copyElements` walks. Made once at module load: reading
 * the table object's entries on every copy (a few arrays per NM1, N3 and N4 of every answer) cost about 6 %
 * of parse + interpret on the corpus.
 */
export function elementFields<K extends string>(fields: Readonly<Record<number, K>>): ElementFields<K> {
  return Object.entries(fields).map(([n, field]) => [Number(n), field] as const);
}

/**
 * Sets each field named in `fields` (element number → field) to that element of segment `i`, when it has a
 * value. Fields are set in element order, so the result's JSON keys keep the segment's order.
 */
export function copyElements<K extends string>(
  t: X12Tokens,
  i: number,
  target: Partial<Record<K, string>>,
  fields: ElementFields<K>,
): void {
  for (let k = 0; k < fields.length; k++) {
    const [n, field] = fields[k]!;
    const value = t.value(i, n);
    if (value) target[field] = value;
  }
}

const N4_TABLE = { 1: 'city', 2: 'state', 3: 'postalCode', 4: 'countryCode' } as const;
const N3_FIELDS = elementFields({ 1: 'address1', 2: 'address2' } as const);
const N4_FIELDS = elementFields(N4_TABLE);
const N4_FIELDS_WITH_SUBDIVISION = elementFields({ ...N4_TABLE, 7: 'countrySubDivisionCode' } as const);

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
  const n4 = options.subdivision ? N4_FIELDS_WITH_SUBDIVISION : N4_FIELDS;
  for (const i of loop.segments) {
    const id = t.segmentId(i);
    if (id === 'N3') copyElements(t, i, address, N3_FIELDS);
    else if (id === 'N4') copyElements(t, i, address, n4);
  }
  return Object.keys(address).length ? address : undefined;
}
