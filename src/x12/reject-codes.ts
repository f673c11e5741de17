/**
 * AAA request-validation codes of the 271 (docs/x12-codes.md), and the contract's own wording for the reject
 * reasons it lists (docs/contract.md "Check outcome errors"), which wins where both exist.
 */

/** AAA03 reject reason (element 901). Unknown codes (e.g. a payer's `RC`) are kept as sent. */
export const AAA03_REJECT_REASONS: Readonly<Record<string, string>> = {
  '04': 'Authorization quantity exceeded',
  '15': 'Required application data missing',
  '33': 'Input errors',
  '35': 'Out of network',
  '41': 'Authorization/access restrictions',
  '42': 'Unable to respond at current time',
  '43': 'Invalid/missing provider identification',
  '44': 'Invalid/missing provider name',
  '45': 'Invalid/missing provider specialty',
  '46': 'Invalid/missing provider phone number',
  '47': 'Invalid/missing provider state',
  '48': 'Invalid/missing referring provider identification number',
  '49': 'Provider is not primary care physician',
  '50': 'Provider ineligible for inquiries',
  '51': 'Provider not on file',
  '52': 'Service dates not within provider plan enrollment',
  '53': 'Inquired benefit inconsistent with provider type',
  '54': 'Inappropriate product/service ID qualifier',
  '55': 'Inappropriate product/service ID',
  '56': 'Inappropriate date',
  '57': 'Invalid/missing date(s) of service',
  '58': 'Invalid/missing date of birth',
  '60': 'Date of birth follows date(s) of service',
  '61': 'Date of death precedes date(s) of service',
  '62': 'Date of service not within allowable inquiry period',
  '63': 'Date of service in future',
  '64': 'Invalid/missing patient ID',
  '65': 'Invalid/missing patient name',
  '66': 'Invalid/missing patient gender code',
  '67': 'Patient not found',
  '68': 'Duplicate patient ID number',
  '69': "Inconsistent with patient's age",
  '70': "Inconsistent with patient's gender",
  '71': 'Patient birth date does not match that for the patient on the database',
  '72': 'Invalid/missing subscriber/insured ID',
  '73': 'Invalid/missing subscriber/insured name',
  '74': 'Invalid/missing subscriber/insured gender code',
  '75': 'Subscriber/insured not found',
  '76': 'Duplicate subscriber/insured ID number',
  '77': 'Subscriber found, patient not found',
  '78': 'Subscriber/insured not in group/plan identified',
  '79': 'Invalid participant identification',
  '80': 'No response received – transaction terminated',
  '97': 'Invalid or missing provider address',
  '98': 'Experimental service or procedure',
  AA: 'Authorization number not found',
  AE: 'Requires primary care physician authorization',
  AF: 'Invalid/missing diagnosis code(s)',
  AG: 'Invalid/missing procedure code(s)',
  AO: 'Additional patient condition information required',
  CI: 'Certification information does not match patient',
  E8: 'Requires medical review',
  IA: 'Invalid authorization number format',
  MA: 'Missing authorization number',
  T4: 'Payer name or identifier missing',
};

/**
 * The AAA03 codes 005010X279A1 allows in each loop of a 271 (checked against the guide's per-loop code lists,
 * docs/x12-codes.md "Where each reason may appear"). Their union is AAA03_REJECT_REASONS.
 */
const codes = (list: string) => list.split(' ');
export const AAA03_BY_LOOP: Readonly<Record<string, readonly string[]>> = {
  '2000A': codes('04 41 42 79'),
  '2100A': codes('04 41 42 79 80 T4'),
  '2100B': codes('15 41 43 44 45 46 47 48 50 51 79 97 T4'),
  '2100C': codes('15 35 42 43 45 47 48 49 51 52 56 57 58 60 61 62 63 71 72 73 74 75 76 78'),
  '2110C': codes('15 33 52 53 54 55 56 57 60 61 62 63 69 70 98 AA AE AF AG AO CI E8 IA MA'),
  '2100D': codes('15 35 42 43 45 47 48 49 51 52 56 57 58 60 61 62 63 64 65 66 67 68 71 77'),
  '2110D': codes('15 33 52 53 54 55 56 57 60 61 62 63 69 70 98 AA AE AF AG AO CI E8 IA MA'),
};

/** AAA04 follow-up action (element 889). */
export const AAA04_FOLLOW_UP_ACTIONS: Readonly<Record<string, string>> = {
  C: 'Please Correct and Resubmit',
  N: 'Resubmission Not Allowed',
  P: 'Please Resubmit Original Transaction',
  R: 'Resubmission Allowed',
  S: 'Do Not Resubmit; Inquiry Initiated to a Third Party',
  W: 'Please Wait 30 Days and Resubmit',
  X: 'Please Wait 10 Days and Resubmit',
  Y: 'Do Not Resubmit; We Will Hold Your Request and Respond Again Shortly',
};

/** The contract's descriptions and follow-up actions (docs/contract.md "Check outcome errors"), verbatim. */
export const SPEC_AAA_ERRORS: Readonly<Record<string, { description: string; followupAction: string }>> = {
  '67': { description: 'Patient not found', followupAction: 'Please Correct and Resubmit' },
  '71': {
    description: 'Patient Birth Date Does Not Match That for the Patient on the Database',
    followupAction: 'Please Correct and Resubmit',
  },
  '72': {
    description: 'Invalid/Missing subscriber/insured ID',
    followupAction: 'Please Correct and Resubmit',
  },
  '73': {
    description: 'Invalid/Missing subscriber/insured name',
    followupAction: 'Please Correct and Resubmit',
  },
  '75': { description: 'Subscriber/Insured not found', followupAction: 'Please Correct and Resubmit' },
  '77': { description: 'Subscriber found, patient not found', followupAction: 'Please Correct and Resubmit' },
};
