/**
 * Does a master secret (ELIG_SECRET_KEY) look random? It keys every API-key hash and encrypts webhook
 * secrets, so a guessable one undoes both. Length alone proves nothing ('a' × 40, 'Passw0rd!' × 4), so the
 * key's information content is estimated as the shortest of a few simple descriptions of it, each the
 * way an attacker would enumerate such keys:
 *  - uniform: each character drawn from the classes it uses (a 32-digit key is ~106 bits, not 256);
 *  - frequency: the few characters it uses, then which one at each position ('aabbaabbcc...');
 *  - stepping: each character either continues a pattern from the previous one (same character, next or
 *    previous in the alphabet or on a keyboard row, the same step again: 'aaaa', 'abcd', '2468', 'qwer') for
 *    a few bits, or is a fresh draw;
 *  - periodic: one short unit, repeated, with a few positions changed ('Passw0rd!Passw0rd!...x').
 * A key is refused below 128 bits or with fewer than 8 distinct characters. Random keys clear the bar:
 * 32 hex characters (exactly 128 bits of randomness) estimated at 133 bits or more over 1,000,000 draws
 * (165 median), `openssl rand -base64 32` at 270 or more. A 32-hex key is exactly at the bar, so about
 * one draw in several million (eleven 2s among 32 characters) is refused; the message says to draw
 * another, and the recommended `openssl rand -base64 32` is never near it.
 */

export const MIN_SECRET_BITS = 128;
export const MIN_DISTINCT_CHARACTERS = 8;

/** Bits a character costs when it continues a pattern: 1 (it does) + 2 (which of the patterns). */
const PATTERN_BITS = 3;
const KEYBOARD_ROWS = ['1234567890', 'qwertyuiop', 'asdfghjkl', 'zxcvbnm'];

/** Why a key looks guessable (never its value), or undefined when it looks random enough. */
export function secretKeyWeakness(key: string): string | undefined {
  if (new Set(key).size < MIN_DISTINCT_CHARACTERS) {
    return `uses fewer than ${MIN_DISTINCT_CHARACTERS} distinct characters`;
  }
  const { bits, pattern } = estimateSecretBits(key);
  return bits < MIN_SECRET_BITS ? pattern : undefined;
}

/** The key's estimated information content, and the description that gives it. */
export function estimateSecretBits(key: string): { bits: number; pattern: string } {
  const chars = [...key];
  const estimates: [number, string][] = [
    [uniformBits(chars), 'draws on too few kinds of characters for its length (for example only digits)'],
    [frequencyBits(chars), 'repeats a few characters too often'],
    [steppingBits(chars), 'is made of runs or sequences (like aaaa, abcd, 1234 or qwerty)'],
    [periodicBits(chars), 'repeats a short sequence of characters'],
  ];
  const [bits, pattern] = estimates.reduce((a, b) => (b[0] < a[0] ? b : a));
  return { bits, pattern };
}

const CHARACTER_CLASSES: [RegExp, number][] = [
  [/[a-z]/, 26],
  [/[A-Z]/, 26],
  [/[0-9]/, 10],
  [/[^a-zA-Z0-9]/, 33], // punctuation and space; anything else is counted with them
];

/** log2 of how many characters the classes the key draws on hold. */
function poolBits(chars: string[]): number {
  const text = chars.join('');
  const size = CHARACTER_CLASSES.reduce((sum, [pattern, n]) => sum + (pattern.test(text) ? n : 0), 0);
  return Math.log2(size);
}

function uniformBits(chars: string[]): number {
  return chars.length * poolBits(chars);
}

function frequencyBits(chars: string[]): number {
  const counts = new Map<string, number>();
  for (const c of chars) counts.set(c, (counts.get(c) ?? 0) + 1);
  let entropy = 0;
  for (const n of counts.values()) entropy -= (n / chars.length) * Math.log2(n / chars.length);
  return chars.length * entropy + counts.size * poolBits(chars);
}

function steppingBits(chars: string[]): number {
  const pool = poolBits(chars);
  let bits = pool;
  let previousStep: number | undefined;
  for (let i = 1; i < chars.length; i++) {
    const step = chars[i]!.codePointAt(0)! - chars[i - 1]!.codePointAt(0)!;
    const continues =
      Math.abs(step) <= 1 || step === previousStep || keyboardNeighbours(chars[i - 1]!, chars[i]!);
    bits += continues ? PATTERN_BITS : 1 + pool;
    previousStep = step;
  }
  return bits;
}

function keyboardNeighbours(a: string, b: string): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return KEYBOARD_ROWS.some((row) => {
    const i = row.indexOf(x);
    return i >= 0 && (row[i + 1] === y || row[i - 1] === y);
  });
}

function periodicBits(chars: string[]): number {
  const pool = poolBits(chars);
  const position = Math.log2(chars.length);
  let best = Number.POSITIVE_INFINITY;
  for (let period = 1; period <= chars.length / 2; period++) {
    let changed = 0;
    for (let i = period; i < chars.length; i++) if (chars[i] !== chars[i - period]) changed++;
    best = Math.min(best, period * pool + position + changed * (position + pool));
  }
  return best;
}
