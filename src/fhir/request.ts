/**
 * A CoverageEligibilityRequest read as the contract's check request (docs/fhir.md "Submitting"): pure, no
 * I/O. What it cannot read is said as OperationOutcome issues with the element path; what it reads goes on
 * to the same intake as every other submit (src/checks/intake.ts), whose problems name contract fields,
 * which `fieldOrigins` turns back into the FHIR elements they were read from.
 */
import type { Coverage, Patient, Reference } from '@medplum/fhirtypes';
import type { EligibilityCheckRequest } from '../contract/check-request.ts';
import type { FhirIssue } from './outcome.ts';
import { containedById, resolveReference } from './references.ts';
import {
  isRecord,
  need,
  type Reading,
  readInsurer,
  readPatient,
  readProvider,
  str,
} from './request-participants.ts';
import { SERVICE_TYPE_SYSTEM } from './systems.ts';

const ROOT = 'CoverageEligibilityRequest';

export type EligibilityRequestReading =
  | {
      ok: true;
      /** The contract's request, not yet validated (the intake does that). */
      body: EligibilityCheckRequest;
      /** Contract field (`subscriber.dateOfBirth`) → the FHIRPath it was read from. */
      fieldOrigins: Record<string, string>;
    }
  | { ok: false; status: 400 | 422; issues: FhirIssue[] };

/** The focal insurance (else the first), its Coverage, and the member id. */
function readCoverage(reading: Reading, insurance: unknown, patientId: string | undefined): string {
  const list = Array.isArray(insurance) ? insurance : [];
  if (!list.length) {
    reading.issues.push({
      code: 'required',
      diagnostics: 'An insurance with its coverage is required.',
      expression: `${ROOT}.insurance`,
    });
    return '';
  }
  const focal = Math.max(
    0,
    list.findIndex((i) => isRecord(i) && i.focal === true),
  );
  const path = `${ROOT}.insurance[${focal}].coverage`;
  const resolved = resolveReference<Coverage>(
    (list[focal] as Record<string, unknown>)?.coverage,
    path,
    reading.contained,
    ['Coverage'],
    false,
  );
  if (resolved.kind !== 'contained') {
    if (resolved.kind === 'problem') reading.issues.push(resolved.issue);
    return '';
  }
  const { resource, path: coveragePath } = resolved.found;
  checkSubscriberIsPatient(reading, resource, coveragePath, patientId);
  return (
    need(
      reading,
      str(resource.subscriberId),
      'subscriber.memberId',
      `${coveragePath}.subscriberId`,
      "The subscriber's member id (subscriberId)",
    ) ?? ''
  );
}

/**
 * The contract asks about the subscriber only (X12 loop 2100C): a dependent patient cannot be asked about
 * yet, and asking about the subscriber instead would answer for the wrong person.
 */
function checkSubscriberIsPatient(
  reading: Reading,
  coverage: Coverage,
  path: string,
  patientId: string | undefined,
) {
  const relationship = coverage.relationship?.coding?.find((c) => c.code)?.code;
  const subscriber = (coverage.subscriber as Reference | undefined)?.reference;
  const beneficiary = (coverage.beneficiary as Reference | undefined)?.reference;
  const dependent =
    (relationship !== undefined && relationship !== 'self') ||
    (subscriber !== undefined && patientId !== undefined && subscriber !== `#${patientId}`) ||
    (beneficiary !== undefined && patientId !== undefined && beneficiary !== `#${patientId}`);
  if (dependent) {
    reading.issues.push({
      code: 'not-supported',
      diagnostics:
        'Only the subscriber can be the patient: checks of a dependent are not supported yet (docs/fhir.md).',
      expression: `${path}.relationship`,
    });
  }
}

function readServiceTypes(reading: Reading, items: unknown): string[] {
  const codes: string[] = [];
  (Array.isArray(items) ? items : []).forEach((item, index) => {
    const path = `${ROOT}.item[${index}].category`;
    const codings =
      isRecord(item) && isRecord(item.category) && Array.isArray(item.category.coding)
        ? item.category.coding
        : [];
    const code = codings.find(
      (c) => isRecord(c) && c.system === SERVICE_TYPE_SYSTEM && typeof c.code === 'string',
    );
    if (!code) {
      reading.issues.push({
        code: 'code-invalid',
        diagnostics: `Code the category with an X12 service type code (system ${SERVICE_TYPE_SYSTEM}).`,
        expression: path,
      });
      return;
    }
    if (!codes.includes(code.code as string)) {
      reading.origins[`encounter.serviceTypeCodes[${codes.length}]`] = path;
      codes.push(code.code as string);
    }
    reading.origins['encounter.serviceTypeCodes'] ??= path;
  });
  return codes;
}

function readServiceDate(reading: Reading, resource: Record<string, unknown>): string | undefined {
  if (resource.servicedPeriod !== undefined) {
    reading.issues.push({
      code: 'not-supported',
      diagnostics: 'Send one day of service as servicedDate; a servicedPeriod is not supported.',
      expression: `${ROOT}.servicedPeriod`,
    });
  }
  const date = str(resource.servicedDate);
  if (date) reading.origins['encounter.dateOfService'] = `${ROOT}.servicedDate`;
  return date?.replaceAll('-', '');
}

/** The request as the contract's check request, or why it cannot be read. */
export function readEligibilityRequest(resource: unknown): EligibilityRequestReading {
  if (!isRecord(resource) || resource.resourceType !== ROOT) {
    return {
      ok: false,
      status: 400,
      issues: [{ code: 'structure', diagnostics: `The body must be a ${ROOT} resource.` }],
    };
  }
  const reading: Reading = { issues: [], origins: {}, contained: containedById(resource, ROOT) };
  const patient = resolveReference<Patient>(
    resource.patient,
    `${ROOT}.patient`,
    reading.contained,
    ['Patient'],
    false,
  );
  if (patient.kind === 'problem') reading.issues.push(patient.issue);
  const subscriber =
    patient.kind === 'contained'
      ? readPatient(reading, patient.found)
      : { firstName: '', lastName: '', dateOfBirth: '' };
  const patientId = patient.kind === 'contained' ? patient.found.resource.id : undefined;
  const memberId = readCoverage(reading, resource.insurance, patientId);
  const provider = readProvider(reading, resource.provider);
  const tradingPartnerServiceId = readInsurer(reading, resource.insurer);
  const serviceTypeCodes = readServiceTypes(reading, resource.item);
  const dateOfService = readServiceDate(reading, resource);
  if (reading.issues.length) return { ok: false, status: 422, issues: reading.issues };
  const encounter = {
    ...(serviceTypeCodes.length ? { serviceTypeCodes } : {}),
    ...(dateOfService ? { dateOfService } : {}),
  };
  return {
    ok: true,
    body: {
      tradingPartnerServiceId,
      provider,
      subscriber: { memberId, ...subscriber },
      ...(Object.keys(encounter).length ? { encounter } : {}),
    },
    fieldOrigins: reading.origins,
  };
}

/** The FHIRPath a contract field was read from: its own, its nearest parent's, or the resource's. */
export function expressionOf(field: string, origins: Record<string, string>): string {
  // `a.b[2]` → `a.b` → `a`: an element's own origin first, then its parents'.
  const parent = (f: string) => f.replace(/(\[\d+\]|\.[^.[]*|^[^.[]*)$/, '');
  for (let f = field; f; f = parent(f)) {
    const origin = origins[f];
    if (origin) return origin;
  }
  return ROOT;
}
