// docs/errors.md, generated from the error catalog (src/checks/error-catalog.ts), the request repairs
// (src/checks/request-repair.ts) and the 999/TA1 positions (src/workers/rejection-error.ts): printed, or
// with --write put in place (npm run docs:errors). test/docs.test.ts holds the file equal to this text.
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import {
  ERROR_CATALOG,
  type ErrorGuidance,
  MBI_RESOLUTIONS,
  UNKNOWN_CODE_RESOLUTIONS,
} from '../src/checks/error-catalog.ts';
import {
  CORRECTION_DESCRIPTIONS,
  type CorrectionCode,
  REQUEST_CORRECTED_WARNING_CODE,
} from '../src/checks/request-repair.ts';
import { CONFIGURED, REQUEST_FIELDS } from '../src/workers/rejection-error.ts';
import { AAA03_BY_LOOP } from '../src/x12/codes.ts';

export const ERRORS_DOC = 'docs/errors.md';

const cell = (text: string | undefined) => (text ? text.replaceAll('|', '\\|') : '—');
const code = (text: string | undefined) => (text ? `\`${text}\`` : '—');

function loopsOf(c: string): string {
  return Object.entries(AAA03_BY_LOOP)
    .filter(([, codes]) => codes.includes(c))
    .map(([loop]) => loop)
    .join(', ');
}

function errorRows(rows: ErrorGuidance[], withLoops: boolean): string[] {
  const head = withLoops
    ? [
        '| Code | Description | In loops | Follow-up action | Field to correct | Possible resolutions |',
        '|---|---|---|---|---|---|',
      ]
    : [
        '| Code | Description | Follow-up action | Field to correct | Possible resolutions |',
        '|---|---|---|---|---|',
      ];
  return [
    ...head,
    ...rows.map((g) =>
      [
        '',
        code(g.code),
        cell(g.description),
        ...(withLoops ? [loopsOf(g.code)] : []),
        cell(g.followupAction),
        code(g.requestField),
        cell(g.possibleResolutions),
        '',
      ]
        .join(' | ')
        .trim(),
    ),
  ];
}

export function errorsDoc(): string {
  const all = [...ERROR_CATALOG.values()];
  const service = all.filter((g) => g.source === 'SERVICE');
  const aaa = all.filter((g) => g.source === 'AAA');
  const corrections = Object.entries(CORRECTION_DESCRIPTIONS) as [CorrectionCode, string][];
  return [
    '# Errors a check can carry, and how to fix them',
    '',
    '<!-- Generated from src/checks/error-catalog.ts by `npm run docs:errors`; test/docs.test.ts keeps it current. Do not edit by hand. -->',
    '',
    'A check that fails is read with status 200, `status: "FAILED"` and an `errors` array; a dependent may carry its',
    'own `aaaErrors`. Every error has a `code`, a `description`, a `followupAction` and `possibleResolutions`: what',
    'to check and change before submitting again. The spec’s eight codes (67, 71, 72, 73, 75, 77, SH01, SH02) keep',
    'the spec’s exact descriptions and follow-up actions. For the other AAA codes the follow-up action below is the',
    'default; when the payer sends its own (AAA04), the payer’s wins.',
    '',
    '"Field to correct" is the request field the error points at (`requestFieldOf(code)` in',
    'src/checks/error-catalog.ts): the portal’s "Fix and resubmit" form highlights it.',
    '',
    '## Errors raised by the service',
    '',
    ...errorRows(service, false),
    '',
    '### SH04: the payer rejected the inquiry (999 or TA1)',
    '',
    'A 999 (implementation acknowledgment) or TA1 (interchange acknowledgment) instead of a 271 means the payer could',
    'not read the inquiry. The error’s `location` names the first segment and element in error, and its',
    '`possibleResolutions` says what to correct: a request field where our 270 fills that position from the request,',
    'or the configuration where it comes from the envelope. Element values (which may be PHI) are never repeated.',
    '',
    '| 270 position | Filled from |',
    '|---|---|',
    ...Object.entries(REQUEST_FIELDS).map(([at, field]) => `| ${at} | request field \`${field}\` |`),
    ...Object.entries(CONFIGURED).map(([at, setting]) => `| ${at} | configuration: ${cell(setting)} |`),
    '',
    '## Payer reject reasons (AAA03)',
    '',
    'Every reject reason 005010X279A1 allows in a 271, with the loops it may appear in (2000A/2100A the payer,',
    '2100B the provider, 2100C/2110C the subscriber, 2100D/2110D a dependent). A reason in 2110C/2110D is about one',
    'benefit, not the whole check: it is reported as an `X12_BENEFIT_AAA` warning. 42 and 80 in 2000A-2100D mean',
    '"ask again later": the service retries on its own before it reports them.',
    '',
    ...errorRows(aaa, true),
    '',
    `A code outside this list (a payer’s own, e.g. \`RC\`) is reported as sent, with: ${UNKNOWN_CODE_RESOLUTIONS}`,
    '',
    '### Medicare Beneficiary Identifiers',
    '',
    'A payer whose directory entry says `"memberIdFormat": "mbi"` ([payers.md](payers.md)) takes Medicare',
    'Beneficiary Identifiers only. A submit with a member id that is not a well-formed MBI is refused with a 400 that',
    'says what an MBI looks like (one shaped like a Social Security number is told Medicare no longer accepts it), and',
    `an AAA 72 from such a payer carries these resolutions instead of the row above: ${cell(MBI_RESOLUTIONS)}`,
    '',
    '## Request repair',
    '',
    'Before a check is validated and stored, the service repairs what payers reject but a person plainly meant, so',
    'a stray accent or apostrophe does not fail the check. Repairs happen at submission: the stored request is the',
    'one the 270 is built from, the 202 answer already lists them, and the finished check (COMPLETED or FAILED)',
    `repeats them in \`requestCorrections\` with a \`${REQUEST_CORRECTED_WARNING_CODE}\` warning. Each correction is`,
    '`{ field, code, description }`: the JSON path of the field, the kind of repair, and what was done in words. A',
    'correction never contains the value, and none is logged.',
    '',
    'Nothing is repaired that could change who the patient is: accents are dropped only from Latin letters, a',
    'suffix moves only when it is a whole word at the end of the last name (and no other suffix was given), and ids',
    'are never cut or guessed: a member id longer than the 80 characters of NM109 is refused, not shortened.',
    '',
    '| Code | Fields | What is done |',
    '|---|---|---|',
    ...corrections.map(([c, description]) => {
      const fields = CORRECTION_FIELDS[c];
      return `| \`${c}\` | ${fields} | ${cell(description.endsWith('.') ? description : `${description} (60, 35 or 25 characters for last, first and middle names; 60 for an organization).`)} |`;
    }),
    '',
    'A value that cannot be repaired is refused with a 400 `ValidationException` whose message names the field and',
    'the format expected, e.g. `subscriber.dateOfBirth must be a date written YYYYMMDD, e.g. 19800115`; an unknown',
    'field is named with the field it probably meant: "`memberID` is not a known field of subscriber (did you mean',
    '`memberId`?)".',
    '',
  ].join('\n');
}

const NAMES =
  '`subscriber.lastName`, `subscriber.firstName`, `subscriber.middleName`, `provider.lastName`, `provider.firstName`';
const CORRECTION_FIELDS: Readonly<Record<CorrectionCode, string>> = {
  NAME_DIACRITICS_FOLDED: `${NAMES}, \`provider.organizationName\``,
  NAME_PUNCTUATION_REMOVED: NAMES,
  NAME_SPACES_REMOVED: `${NAMES}, \`provider.organizationName\``,
  NAME_SUFFIX_MOVED: '`subscriber.lastName` (to `subscriber.suffix`)',
  MEMBER_ID_SEPARATORS_REMOVED:
    '`subscriber.memberId` (spaces and dashes; with `keepMemberIdSeparators` in the payer directory, only spaces at the ends)',
  MEMBER_ID_UPPERCASED: '`subscriber.memberId`, for a payer whose `memberIdFormat` is `mbi` only',
  DATE_REFORMATTED: '`subscriber.dateOfBirth`, `encounter.dateOfService`',
  TRIMMED_TO_MAX_LENGTH: `${NAMES}, \`provider.organizationName\``,
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const doc = errorsDoc();
  if (process.argv.includes('--write')) {
    if (readFileSync(ERRORS_DOC, { encoding: 'utf8', flag: 'a+' }) !== doc) writeFileSync(ERRORS_DOC, doc);
  } else {
    console.log(doc);
  }
}
