/**
 * Codes for the parties and related entities of a 271: NM101 entity identifiers, REF qualifiers (with the
 * camelCase keys the API uses in `benefitsAdditionalInformation`), PER communication modes and EB13
 * procedure code qualifiers.
 */
type Table = Readonly<Record<string, string>>;

export const ENTITY_IDENTIFIER_CODES: Table = {
  PR: 'Payer',
  '1P': 'Provider',
  '2B': 'Third-Party Administrator',
  '36': 'Employer',
  GP: 'Gateway Provider',
  P5: 'Plan Sponsor',
  FA: 'Facility',
  '80': 'Hospital',
  IL: 'Insured or Subscriber',
  '03': 'Dependent',
  '13': 'Contracted Service Provider',
  '73': 'Other Physician',
  P3: 'Primary Care Provider',
  PRP: 'Primary Payer',
  SEP: 'Secondary Payer',
  TTP: 'Tertiary Payer',
  VN: 'Vendor',
  X3: 'Utilization Management Organization',
  Y2: 'Managed Care Organization',
  '1I': 'Preferred Provider Organization (PPO)',
  CN: 'Case Manager',
  GW: 'Group',
  LR: 'Legal Representative',
  P4: 'Prior Insurance Carrier',
  QC: 'Patient',
  SJ: 'Service Provider',
};

/** REF01 → key in `benefitsAdditionalInformation` (Change Healthcare/Stedi naming). */
export const REF_KEYS: Table = {
  '18': 'planNumber',
  '1L': 'groupOrPolicyNumber',
  '1W': 'memberId',
  '49': 'familyUnitNumber',
  '6P': 'groupNumber',
  '9F': 'referralNumber',
  A6: 'employeeIdentificationNumber',
  ALS: 'alternativeListId',
  CLI: 'coverageListId',
  EA: 'medicalRecordIdentificationNumber',
  EJ: 'patientAccountNumber',
  F6: 'hicNumber',
  FO: 'drugFormularyNumber',
  G1: 'priorAuthorizationNumber',
  GH: 'identificationCardSerialNumber',
  HJ: 'identityCardNumber',
  HPI: 'nationalProviderIdentifier',
  IF: 'issueNumber',
  IG: 'insurancePolicyNumber',
  M7: 'medicalAssistanceCategory',
  MRC: 'eligibilityCategory',
  N6: 'planNetworkIdNumber',
  NQ: 'medicaidRecipientIdNumber',
  Q4: 'priorIdNumber',
  SY: 'socialSecurityNumber',
  Y4: 'agencyClaimNumber',
};

/**
 * INS02 individual relationship code (element 1069) of a 2100C/2100D: the subscriber's is `18` (Self); a
 * dependent's names its relationship to the subscriber (Stedi's `relationToSubscriber` wording).
 */
export const INS02_RELATIONSHIP_CODES: Table = {
  '01': 'Spouse',
  '18': 'Self',
  '19': 'Child',
  '20': 'Employee',
  '21': 'Unknown',
  '39': 'Organ Donor',
  '40': 'Cadaver Donor',
  '53': 'Life Partner',
  G8: 'Other Relationship',
};

/** PER03/05/07 communication number qualifiers. */
export const PER_COMMUNICATION_MODES: Table = {
  ED: 'Electronic Data Interchange Access Number',
  EM: 'Electronic Mail',
  EX: 'Telephone Extension',
  FX: 'Facsimile',
  TE: 'Telephone',
  UR: 'Uniform Resource Locator (URL)',
  WP: 'Work Phone Number',
};

/** EB13-1 product/service id qualifier. */
export const PROCEDURE_QUALIFIERS: Table = {
  AD: 'American Dental Association Codes',
  CJ: 'Current Procedural Terminology (CPT) Codes',
  HC: 'Health Care Financing Administration Common Procedural Coding System (HCPCS) Codes',
  ID: 'International Classification of Diseases, 9th Revision, Clinical Modification (ICD-9-CM) - Procedure',
  IV: 'Home Infusion EDI Coalition (HIEC) Product/Service Code',
  N4: 'National Drug Code in 5-4-2 Format',
  ZZ: 'Mutually Defined',
};
