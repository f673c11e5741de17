/**
 * The code and identifier systems the FHIR face reads and writes (docs/fhir.md "Identifier systems"). The
 * HL7 and X12 ones are theirs; the `urn:eligibility-service:` ones are this service's own, stable across
 * deployments (a server's address is not part of them).
 */

/** The National Provider Identifier (provider identifiers). */
export const NPI_SYSTEM = 'http://hl7.org/fhir/sid/us-npi';
/** HL7 v2 table 0203 (identifier types): `NIIP` marks the insurer's payer id. */
export const IDENTIFIER_TYPE_SYSTEM = 'http://terminology.hl7.org/CodeSystem/v2-0203';
export const PAYER_ID_TYPE = 'NIIP';
/** The payer directory's ids and aliases (`GET /api/payers`); an insurer identifier may also omit its system. */
export const PAYER_ID_SYSTEM = 'urn:eligibility-service:payer-id';
/** X12 005010 element 1365: service type codes (EQ01, EB03). */
export const SERVICE_TYPE_SYSTEM = 'https://codesystem.x12.org/005010/1365';
/** X12 005010 element 1390: eligibility or benefit information codes (EB01), e.g. `G` out of pocket. */
export const BENEFIT_INFORMATION_SYSTEM = 'https://codesystem.x12.org/005010/1390';
/** X12 005010 element 901: the AAA reject reason codes (`67`, `75`, …). */
export const REJECT_REASON_SYSTEM = 'https://codesystem.x12.org/005010/901';
/** The service's own check errors (`SH01` to `SH04`, docs/contract.md "Check outcome errors"). */
export const SERVICE_ERROR_SYSTEM = 'urn:eligibility-service:check-error';
/** HL7 terminology for the response's items and benefits. */
export const BENEFIT_TYPE_SYSTEM = 'http://terminology.hl7.org/CodeSystem/benefit-type';
export const BENEFIT_NETWORK_SYSTEM = 'http://terminology.hl7.org/CodeSystem/benefit-network';
export const BENEFIT_UNIT_SYSTEM = 'http://terminology.hl7.org/CodeSystem/benefit-unit';
export const BENEFIT_TERM_SYSTEM = 'http://terminology.hl7.org/CodeSystem/benefit-term';
/** The check's confidence (`score`, 0 to 1) on the response, and an entry's on its item. */
export const CONFIDENCE_EXTENSION = 'urn:eligibility-service:extension:confidence';
/** The check's verdict status (ACTIVE, INACTIVE, UNDETERMINED, FAILED) on the response. */
export const VERDICT_EXTENSION = 'urn:eligibility-service:extension:verdict';
