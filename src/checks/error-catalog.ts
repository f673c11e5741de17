/**
 * The one table of errors a check can carry (docs/errors.md is generated from it: `npm run docs:errors`):
 * every AAA03 reject reason 005010X279A1 allows in a 271, and the service's own SH codes (SH04 is how a 999
 * or TA1 rejection is reported). Each has a description, a follow-up action, possible resolutions in words a
 * front desk can act on, and, where there is one, the request field to correct (`requestField`).
 *
 * Descriptions: the contract's wording for its eight codes (docs/contract.md "Check outcome errors"), else
 * the X12 code name (x12/reject-codes.ts). Follow-up actions: the contract's for its eight codes; for the
 * others this is the default, and the payer's own AAA04 wins when it sends one.
 */
import type { EligibilityCheckError } from '../contract/check-response.ts';
import { AAA03_REJECT_REASONS, SPEC_AAA_ERRORS } from '../x12/codes.ts';

export interface ErrorGuidance {
  code: string;
  /** `AAA`: a payer's reject reason (AAA03); `SERVICE`: raised by this service. */
  source: 'AAA' | 'SERVICE';
  description: string;
  followupAction: string;
  possibleResolutions: string;
  /** The request field (JSON path) the error points at, for a "fix and resubmit" form to highlight. */
  requestField?: string;
}

const CORRECT = 'Please Correct and Resubmit';
const ALLOWED = 'Resubmission Allowed';
const NOT_ALLOWED = 'Resubmission Not Allowed';

const ID = 'subscriber.memberId';
const DOB = 'subscriber.dateOfBirth';
const DOS = 'encounter.dateOfService';
const STC = 'encounter.serviceTypeCodes';
const NPI = 'provider.npi';

const CARD_ID =
  'Check the member id on the card: it is usually 9-12 characters and may start with letters; re-key it without spaces.';
const CARD_NAME =
  'Check the last and first name against the card, spelled exactly as printed (no nickname); a maiden or previous last name may still be on file.';
const CARD_DOB = 'Check the date of birth with the patient (YYYYMMDD); day and month are often swapped.';
const WHO_IS_PATIENT =
  'If the patient is a spouse or child on someone else’s plan, enter the policy holder’s member id, name and date of birth.';
const ENROLMENT =
  'Ask the payer’s provider services whether the NPI is enrolled with them for this plan; the check cannot succeed until it is.';
const DOS_RULE =
  'Check the date of service: payers answer for today and for dates within their inquiry window (often the last 12 months and the current month); leave it empty for today.';
const SERVICE_TYPES =
  'Ask for another service type code (e.g. 30, Health Benefit Plan Coverage, which every payer answers), or leave the codes empty.';
const AUTHORIZATION =
  'This is about an authorization or referral, not eligibility: call the payer’s utilization management or the number on the card.';
const CALL_PAYER = 'If the details are right, call the payer (number on the back of the card).';

/** [code, default follow-up action, request field, resolutions] for each AAA03 reject reason. */
const AAA_ROWS: readonly [string, string, string | undefined, string][] = [
  [
    '04',
    CORRECT,
    undefined,
    `The inquiry asked for more than the payer allows at once. Ask again for fewer service type codes.`,
  ],
  [
    '15',
    CORRECT,
    ID,
    `The payer needs more to find the member. Fill in the member id, first and last name and date of birth. ${CARD_ID}`,
  ],
  [
    '33',
    CORRECT,
    undefined,
    `The payer found errors in the inquiry without saying which. Check the member id, name and date of birth against the card and submit again. ${CALL_PAYER}`,
  ],
  [
    '35',
    NOT_ALLOWED,
    NPI,
    `The payer says this provider is out of network for the member’s plan. Check that the NPI is the one enrolled with this payer; if it is, tell the patient the visit is out of network.`,
  ],
  [
    '41',
    NOT_ALLOWED,
    NPI,
    `The payer does not let this provider (or your organization) ask about this member. ${ENROLMENT}`,
  ],
  [
    '42',
    ALLOWED,
    undefined,
    'The payer could not answer right now. Submit the check again in a few minutes.',
  ],
  [
    '43',
    CORRECT,
    NPI,
    `Check the provider NPI (10 digits, from NPPES or the provider’s enrolment letter). ${ENROLMENT}`,
  ],
  [
    '44',
    CORRECT,
    'provider.organizationName',
    'Check the provider name: the organization name (or first and last name) as enrolled with the payer.',
  ],
  [
    '45',
    CORRECT,
    undefined,
    `The payer wants the provider’s specialty (taxonomy), which this service does not send. Ask the payer whether the NPI is enrolled with a specialty. ${CALL_PAYER}`,
  ],
  [
    '46',
    CORRECT,
    undefined,
    `The payer has no phone number on file for the provider. Update the enrolment with the payer. ${CALL_PAYER}`,
  ],
  [
    '47',
    CORRECT,
    undefined,
    `The payer has no usable state on file for the provider. Update the enrolment with the payer. ${CALL_PAYER}`,
  ],
  [
    '48',
    CORRECT,
    undefined,
    `The payer needs the referring provider’s id, which this service does not send. Call the payer for this member.`,
  ],
  [
    '49',
    NOT_ALLOWED,
    NPI,
    'The payer answers only the member’s primary care physician. Check which practice is the member’s PCP, or ask the member to change PCP.',
  ],
  ['50', NOT_ALLOWED, NPI, `This provider may not send eligibility inquiries to this payer. ${ENROLMENT}`],
  ['51', CORRECT, NPI, `The payer does not know this NPI. Check it for typos (10 digits). ${ENROLMENT}`],
  [
    '52',
    CORRECT,
    DOS,
    `The date of service is outside the dates the provider is enrolled with the member’s plan. ${DOS_RULE}`,
  ],
  ['53', CORRECT, STC, `The service type asked for does not fit this provider’s type. ${SERVICE_TYPES}`],
  ['54', CORRECT, STC, `The payer does not accept the kind of service code sent. ${SERVICE_TYPES}`],
  ['55', CORRECT, STC, `The payer does not accept a service type code sent. ${SERVICE_TYPES}`],
  ['56', CORRECT, DOS, `The payer does not accept the date asked about. ${DOS_RULE}`],
  ['57', CORRECT, DOS, `The date of service is missing or not accepted. ${DOS_RULE}`],
  ['58', CORRECT, DOB, `The date of birth is missing or not accepted. ${CARD_DOB}`],
  [
    '60',
    CORRECT,
    DOB,
    `The date of birth is after the date of service. ${CARD_DOB} Then check the date of service.`,
  ],
  [
    '61',
    NOT_ALLOWED,
    DOS,
    'The payer records a date of death before the date of service. Check the date of service and that this is the right member; if both are right, call the payer.',
  ],
  ['62', CORRECT, DOS, `The date of service is outside the period the payer answers for. ${DOS_RULE}`],
  ['63', CORRECT, DOS, `The date of service is in the future for this payer. ${DOS_RULE}`],
  ['64', CORRECT, ID, `The payer could not read the patient’s id. ${CARD_ID}`],
  ['65', CORRECT, 'subscriber.lastName', `The payer could not match the patient’s name. ${CARD_NAME}`],
  [
    '66',
    CORRECT,
    'subscriber.gender',
    'The patient’s gender code is missing or does not match the payer’s records: send M, F or U, or leave it out.',
  ],
  [
    '67',
    CORRECT,
    'subscriber.lastName',
    `The payer found the policy but not this patient on it. ${CARD_NAME} ${CARD_DOB} ${WHO_IS_PATIENT}`,
  ],
  [
    '68',
    CORRECT,
    ID,
    `The payer has more than one patient with this id. ${CARD_ID} Add the exact date of birth and name as on the card.`,
  ],
  [
    '69',
    CORRECT,
    STC,
    `The service asked about does not fit the patient’s age on file. ${CARD_DOB} ${SERVICE_TYPES}`,
  ],
  ['70', CORRECT, STC, `The service asked about does not fit the patient’s gender on file. ${SERVICE_TYPES}`],
  [
    '71',
    CORRECT,
    DOB,
    `The date of birth does not match the payer’s records for this member. ${CARD_DOB} ${WHO_IS_PATIENT}`,
  ],
  [
    '72',
    CORRECT,
    ID,
    `The member id is missing or not in the payer’s format. ${CARD_ID} Use the id of the policy holder named on the card.`,
  ],
  [
    '73',
    CORRECT,
    'subscriber.lastName',
    `The name does not match the payer’s records for this member id. ${CARD_NAME} A suffix (JR, III) belongs in subscriber.suffix, not in the last name.`,
  ],
  [
    '74',
    CORRECT,
    'subscriber.gender',
    'The gender code does not match the payer’s records: send M, F or U as on the card, or leave it out.',
  ],
  [
    '75',
    CORRECT,
    ID,
    `The payer has no member with these details. ${CARD_ID} Check also that the payer (tradingPartnerServiceId) is the one on the card. ${WHO_IS_PATIENT}`,
  ],
  [
    '76',
    CORRECT,
    ID,
    `The payer has more than one member with this id. ${CARD_ID} Check the name and date of birth so the payer can tell them apart.`,
  ],
  [
    '77',
    CORRECT,
    'subscriber.firstName',
    `The payer found the policy holder but not this patient on the policy. Check the patient’s first name and date of birth; the patient may be covered under another policy. ${CALL_PAYER}`,
  ],
  [
    '78',
    CORRECT,
    'tradingPartnerServiceId',
    'The member is not in the group or plan the inquiry went to. Check that the payer is the one on the card (a regional plan or a different line of business may have its own payer id).',
  ],
  [
    '79',
    CORRECT,
    undefined,
    'The payer did not recognise the submitter or receiver of the inquiry. This is a set-up problem: check the payer directory entry and the sender id enrolled with the payer (X12_SENDER_ID), then contact support.',
  ],
  [
    '80',
    ALLOWED,
    undefined,
    'The payer’s system did not answer in time and ended the transaction. Submit the check again later.',
  ],
  [
    '97',
    CORRECT,
    undefined,
    `The payer has no usable address on file for the provider. Update the enrolment with the payer. ${CALL_PAYER}`,
  ],
  [
    '98',
    NOT_ALLOWED,
    STC,
    'The payer treats the service asked about as experimental. Call the payer before the visit if the patient needs it.',
  ],
  ['AA', CORRECT, undefined, `The payer could not find the authorization number. ${AUTHORIZATION}`],
  [
    'AE',
    CORRECT,
    undefined,
    `The service needs an authorization from the member’s primary care physician. ${AUTHORIZATION}`,
  ],
  [
    'AF',
    CORRECT,
    undefined,
    `The payer needs diagnosis codes for this service, which this service does not send. ${AUTHORIZATION}`,
  ],
  [
    'AG',
    CORRECT,
    undefined,
    `The payer needs procedure codes for this service, which this service does not send. ${AUTHORIZATION}`,
  ],
  ['AO', CORRECT, undefined, `The payer needs more about the patient’s condition. ${AUTHORIZATION}`],
  ['CI', CORRECT, undefined, `The certification on file does not match this patient. ${AUTHORIZATION}`],
  ['E8', NOT_ALLOWED, undefined, `The service needs the payer’s medical review. ${AUTHORIZATION}`],
  ['IA', CORRECT, undefined, `The authorization number is not in the payer’s format. ${AUTHORIZATION}`],
  ['MA', CORRECT, undefined, `The payer needs an authorization number for this service. ${AUTHORIZATION}`],
  [
    'T4',
    CORRECT,
    'tradingPartnerServiceId',
    'The payer name or id in the inquiry was missing or unknown to the receiver. Check the payer (tradingPartnerServiceId; GET /api/payers lists them) and its payerId in PAYERS_FILE.',
  ],
];

const SERVICE_ROWS: readonly ErrorGuidance[] = [
  {
    code: 'SH01',
    source: 'SERVICE',
    description: 'Payer not supported',
    followupAction: NOT_ALLOWED,
    requestField: 'tradingPartnerServiceId',
    possibleResolutions:
      'Check the tradingPartnerServiceId against the payer directory (GET /api/payers lists it; SANDBOX is the sandbox payer). If the payer is missing, ask your administrator to add it to PAYERS_FILE.',
  },
  {
    code: 'SH02',
    source: 'SERVICE',
    description: 'Payer portal check did not complete',
    followupAction: ALLOWED,
    possibleResolutions:
      'The payer did not answer in time or answered unusably. Submit the check again later; if it keeps failing, the payer may be down (ask your administrator to look at the payer’s status).',
  },
  {
    code: 'SH03',
    source: 'SERVICE',
    description: 'Check could not be processed',
    followupAction: ALLOWED,
    possibleResolutions:
      'The service failed while processing this check, and retrying did not help. Check the request against the API reference and submit it again; if it fails again, contact support with the check id.',
  },
  {
    code: 'SH04',
    source: 'SERVICE',
    description: 'Payer rejected the inquiry',
    followupAction: CORRECT,
    possibleResolutions:
      'The payer could not read the inquiry (a 999 or TA1 rejection) and did not answer it. Correct the inquiry and submit it again.',
  },
];

/** Said of an AAA03 code the guide does not list (a payer's own, e.g. `RC`). */
export const UNKNOWN_CODE_RESOLUTIONS =
  'The payer sent a reason code outside the X12 list. Check the member id, name and date of birth against the card and submit again; if it fails the same way, call the payer and quote the code.';

export const ERROR_CATALOG: ReadonlyMap<string, ErrorGuidance> = new Map(
  [
    ...AAA_ROWS.map(
      ([code, followupAction, requestField, possibleResolutions]): ErrorGuidance => ({
        code,
        source: 'AAA',
        description: SPEC_AAA_ERRORS[code]?.description ?? AAA03_REJECT_REASONS[code]!,
        followupAction: SPEC_AAA_ERRORS[code]?.followupAction ?? followupAction,
        possibleResolutions,
        ...(requestField ? { requestField } : {}),
      }),
    ),
    ...SERVICE_ROWS,
  ].map((g) => [g.code, g]),
);

/** The request field an error code points at, when there is one (a "fix and resubmit" form highlights it). */
export function requestFieldOf(code: string): string | undefined {
  return ERROR_CATALOG.get(code)?.requestField;
}

/** AAA 72 from a payer that takes Medicare Beneficiary Identifiers (`memberIdFormat: "mbi"`). */
export const MBI_RESOLUTIONS = [
  'This payer takes Medicare Beneficiary Identifiers (MBI): use the 11-character MBI on the patient’s current red, white and blue Medicare card, e.g. 1EG4-TE5-MK73, not the old card’s number built on the Social Security number (Medicare stopped accepting it in 2020).',
  'Check each character: MBIs never use the letters S, L, O, I, B or Z, so a 0 or 1 read as O or I is a common typo.',
  'If the patient has no new card or cannot find it, the MBI is in their Medicare account (medicare.gov) or can be looked up through the Medicare Administrative Contractor’s provider portal.',
  'A Medicare Advantage plan member is checked with that plan, under its own member id.',
].join('\n');

/** What a check's errors are read against: the payer's declared member id format, when it has one. */
export interface GuidanceContext {
  memberIdFormat?: 'mbi';
}

/**
 * An error as a check carries it: what the payer or the service said, with the table's follow-up action
 * (where none was said) and possible resolutions (where none were written for this occurrence). An AAA 72
 * from an MBI payer says what an MBI is, in place of the general member id advice.
 */
export function withGuidance(
  error: EligibilityCheckError,
  context: GuidanceContext = {},
): EligibilityCheckError {
  if (error.code === '72' && context.memberIdFormat === 'mbi' && error.possibleResolutions === undefined)
    return withGuidance({ ...error, possibleResolutions: MBI_RESOLUTIONS });
  const guidance = ERROR_CATALOG.get(error.code);
  const followupAction = error.followupAction ?? guidance?.followupAction;
  return {
    ...error,
    ...(followupAction ? { followupAction } : {}),
    possibleResolutions:
      error.possibleResolutions ?? guidance?.possibleResolutions ?? UNKNOWN_CODE_RESOLUTIONS,
  };
}

/** The table row of a service error, as an error a check carries. */
export function serviceError(code: 'SH01' | 'SH02' | 'SH03' | 'SH04'): EligibilityCheckError {
  const g = ERROR_CATALOG.get(code)!;
  return {
    code,
    description: g.description,
    followupAction: g.followupAction,
    field: code === 'SH04' ? 'X12' : 'SERVICE',
    possibleResolutions: g.possibleResolutions,
  };
}
