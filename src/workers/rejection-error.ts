/**
 * The check error for a 999 or TA1 rejection: the payer refused to read the inquiry, so asking again
 * unchanged gets the same answer. It says where (segment, loop, element from the acknowledgment) and, where
 * that position is one our 270 fills from the request, which request field to correct. Never a value.
 */
import { serviceError } from '../checks/error-catalog.ts';
import type { EligibilityCheckError } from '../contract/check-response.ts';
import { describeWhere } from '../x12/acknowledgments.ts';
import type { InquiryRejected } from '../x12/types.ts';

/** 270 positions (loop + segment + element) our builder fills from a request field (build270.ts). */
export const REQUEST_FIELDS: Readonly<Record<string, string>> = {
  '2100B NM103': 'provider.organizationName or provider.lastName',
  '2100B NM104': 'provider.firstName',
  '2100B NM109': 'provider.npi',
  '2100C NM103': 'subscriber.lastName',
  '2100C NM104': 'subscriber.firstName',
  '2100C NM105': 'subscriber.middleName',
  '2100C NM107': 'subscriber.suffix',
  '2100C NM109': 'subscriber.memberId',
  DMG02: 'subscriber.dateOfBirth',
  DMG03: 'subscriber.gender',
  EQ01: 'encounter.serviceTypeCodes',
  DTP03: 'encounter.dateOfService',
};

/** Envelope and payer positions come from configuration, not from the request. */
export const CONFIGURED: Readonly<Record<string, string>> = {
  ISA05: 'X12_SENDER_QUALIFIER (or the connector’s senderQualifier)',
  ISA06: 'X12_SENDER_ID (or the connector’s senderId)',
  ISA07: 'the connector’s receiverQualifier',
  ISA08: 'the payer’s payerId or the connector’s receiverId',
  '2100A NM103': 'the payer’s name in PAYERS_FILE',
  '2100A NM109': 'the payer’s payerId in PAYERS_FILE',
};

function fieldAt(r: InquiryRejected): { request?: string; configured?: string } {
  const element = r.element?.replace(/-\d+$/, '');
  if (!element) return {};
  const keys = [`${r.loop ?? ''} ${element}`, element];
  for (const key of keys) {
    if (REQUEST_FIELDS[key]) return { request: REQUEST_FIELDS[key] };
    if (CONFIGURED[key]) return { configured: CONFIGURED[key] };
  }
  return {};
}

export function rejectionError(r: InquiryRejected): EligibilityCheckError {
  const { request, configured } = fieldAt(r);
  const where = describeWhere(r).replace(/^ \(first error in (.*)\)$/, '$1');
  const what =
    r.kind === '999'
      ? `The payer rejected the inquiry without answering it (999 implementation acknowledgment ${r.code})`
      : `The payer's gateway rejected the interchange without answering it (TA1 ${r.code}${r.errorCode ? `, note code ${r.errorCode}` : ''})`;
  const fix = request
    ? `Correct ${request} and submit the check again.`
    : configured
      ? `The envelope comes from configuration: check ${configured} against the payer's enrolment, then submit the check again.`
      : 'Correct the inquiry and submit the check again; if it is rejected the same way, contact support with the check id.';
  const error: EligibilityCheckError = {
    ...serviceError('SH04'),
    possibleResolutions: `${what}${where ? `; first error: ${where}` : ''}. ${fix}`,
  };
  if (request) error.field = request;
  if (r.segment) {
    error.location = [
      r.loop ? `loop ${r.loop}` : '',
      `segment ${r.segment}`,
      r.element ? `element ${r.element}` : '',
    ]
      .filter(Boolean)
      .join(', ');
  }
  return error;
}
