/**
 * Member id formats a payer directory entry can declare (`memberIdFormat`), checked at submission so a
 * check the payer would refuse with AAA 72 is refused before it is stored or sent.
 *
 * `mbi`: Medicare Beneficiary Identifiers, CMS's format since the 2018-2020 card replacement. 11 characters
 * (dashes and spaces are separators, removed at submission): position 1 a digit 1-9; 2, 5, 8 and 9 a letter;
 * 3 and 6 a letter or a digit; 4, 7, 10 and 11 a digit. Letters never include S, L, O, I, B or Z (they read
 * like digits). Medicare stopped accepting the SSN-based Health Insurance Claim Number (HICN) in 2020, so a
 * number shaped like an SSN (or an SSN with the HICN's letter suffix) gets its own message.
 *
 * Messages never quote the id: they say which position breaks which rule.
 */

/** The letters an MBI may use: A-Z without S, L, O, I, B, Z. */
const MBI_LETTER = /^[AC-HJKMNP-RT-Y]$/;
const DIGIT = /^[0-9]$/;
const NONZERO_DIGIT = /^[1-9]$/;
const EXCLUDED_LETTER = /^[SLOIBZ]$/;

type CharClass = 'nonzero-digit' | 'letter' | 'letter-or-digit' | 'digit';

/** The character class of each of the 11 positions. */
const MBI_POSITIONS: readonly CharClass[] = [
  'nonzero-digit',
  'letter',
  'letter-or-digit',
  'digit',
  'letter',
  'letter-or-digit',
  'digit',
  'letter',
  'letter',
  'digit',
  'digit',
];

const CLASS_WORDS: Readonly<Record<CharClass, string>> = {
  'nonzero-digit': 'a digit 1-9',
  letter: 'a letter',
  'letter-or-digit': 'a letter or a digit',
  digit: 'a digit',
};

export const MBI_SHAPE =
  'an MBI is the 11-character id on the red, white and blue Medicare card, e.g. 1EG4-TE5-MK73 (dashes optional): a digit 1-9, a letter, a letter or digit, a digit, a letter, a letter or digit, a digit, two letters, two digits; the letters S, L, O, I, B and Z are never used';

function fits(c: string, cls: CharClass): boolean {
  switch (cls) {
    case 'nonzero-digit':
      return NONZERO_DIGIT.test(c);
    case 'digit':
      return DIGIT.test(c);
    case 'letter':
      return MBI_LETTER.test(c);
    case 'letter-or-digit':
      return MBI_LETTER.test(c) || DIGIT.test(c);
  }
}

/** Separators removed and letters in capitals: the form an MBI is sent in. */
export function mbiForm(memberId: string): string {
  return memberId.replace(/[\s-]+/gu, '').toUpperCase();
}

/** SSN (9 digits) or HICN (an SSN with a 1-2 character beneficiary code): numbers Medicare no longer takes. */
const SSN_SHAPED = /^\d{9}(?:[A-Z][A-Z0-9]?)?$/;

/** Why `memberId` (as submitted, after repair) is not a well-formed MBI; undefined when it is one. */
export function mbiProblem(memberId: string): string | undefined {
  const id = mbiForm(memberId);
  if (SSN_SHAPED.test(id))
    return `looks like a Social Security number (or a Medicare claim number built on one), which Medicare no longer accepts: use the Medicare Beneficiary Identifier (MBI) from the patient's current Medicare card; ${MBI_SHAPE}`;
  if (id.length !== MBI_POSITIONS.length)
    return `must be a Medicare Beneficiary Identifier (MBI) for this payer, and it has ${id.length} characters, not 11; ${MBI_SHAPE}`;
  for (let k = 0; k < id.length; k++) {
    const c = id[k]!;
    const cls = MBI_POSITIONS[k]!;
    if (fits(c, cls)) continue;
    const why = EXCLUDED_LETTER.test(c)
      ? `is one of the letters MBIs never use (S, L, O, I, B, Z)`
      : `must be ${CLASS_WORDS[cls]}`;
    return `is not a well-formed Medicare Beneficiary Identifier (MBI): character ${k + 1} ${why}; ${MBI_SHAPE}`;
  }
  return undefined;
}
