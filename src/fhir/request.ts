/**
 * A CoverageEligibilityRequest read as the contract's check request (docs/fhir.md "Submitting"): pure, no
 * I/O. What it cannot read is said as OperationOutcome issues with the element path; what it reads goes on
 * to the same intake as every other submit (src/checks/intake.ts), whose problems name contract fields,
 * which `fieldOrigins` turns back into the FHIR elements they were read from.
 */
import type {
  Coverage,
  HumanName,
  Identifier,
  Organization,
  Patient,
  Practitioner,
  Reference,
} from '@medplum/fhirtypes';
import type { EligibilityCheckRequest } from '../contract/check-request.ts';
import type { FhirIssue } from './outcome.ts';
import { containedById, type Resolved, resolveReference } from './references.ts';
import {
  IDENTIFIER_TYPE_SYSTEM,
  NPI_SYSTEM,
  PAYER_ID_SYSTEM,
  PAYER_ID_TYPE,
  SERVICE_TYPE_SYSTEM,
} from './systems.ts';

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

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/** The reading in progress: the body's parts, where each came from, and the problems so far. */
interface Reading {
  issues: FhirIssue[];
  origins: Record<string, string>;
  contained: ReturnType<typeof containedById>;
}

function need<T>(
  reading: Reading,
  value: T | undefined,
  field: string,
  expression: string,
  what: string,
): T | undefined {
  if (value === undefined)
    reading.issues.push({ code: 'required', diagnostics: `${what} is required.`, expression });
  else reading.origins[field] = expression;
  return value;
}

/** The first identifier of `identifiers` that `accept` takes, with its FHIRPath. */
function findIdentifier(
  identifiers: unknown,
  path: string,
  accept: (identifier: Identifier) => boolean,
): { value: string | undefined; path: string } | undefined {
  if (!Array.isArray(identifiers)) return undefined;
  const index = identifiers.findIndex((i) => isRecord(i) && accept(i as Identifier));
  if (index < 0) return undefined;
  return { value: str((identifiers[index] as Identifier).value), path: `${path}.identifier[${index}].value` };
}

const isNpi = (i: Identifier) => i.system === NPI_SYSTEM;
const isPayerId = (i: Identifier) =>
  (i.system === undefined || i.system === PAYER_ID_SYSTEM) &&
  (i.type?.coding ?? []).some((c) => c.system === IDENTIFIER_TYPE_SYSTEM && c.code === PAYER_ID_TYPE);

function readName(reading: Reading, name: HumanName | undefined, path: string, prefix: string) {
  const given = name?.given ?? [];
  return {
    first: need(reading, str(given[0]), `${prefix}.firstName`, `${path}.name[0].given[0]`, 'A given name'),
    last: need(reading, str(name?.family), `${prefix}.lastName`, `${path}.name[0].family`, 'A family name'),
    middle: str(given[1]),
  };
}

const GENDERS: Record<string, 'M' | 'F' | 'U'> = { male: 'M', female: 'F', unknown: 'U' };

function readPatient(reading: Reading, patient: Resolved<Patient>) {
  const { resource, path } = patient;
  const name = readName(reading, resource.name?.[0], path, 'subscriber');
  if (name.middle) reading.origins['subscriber.middleName'] = `${path}.name[0].given[1]`;
  const birthDate = need(
    reading,
    str(resource.birthDate),
    'subscriber.dateOfBirth',
    `${path}.birthDate`,
    'The birth date',
  );
  const gender = resource.gender ? GENDERS[resource.gender] : undefined;
  if (gender) reading.origins['subscriber.gender'] = `${path}.gender`;
  return {
    firstName: name.first ?? '',
    lastName: name.last ?? '',
    ...(name.middle ? { middleName: name.middle } : {}),
    dateOfBirth: (birthDate ?? '').replaceAll('-', ''),
    ...(gender ? { gender } : {}),
  };
}

function readProvider(reading: Reading, reference: unknown): EligibilityCheckRequest['provider'] {
  const resolved = resolveReference<Practitioner | Organization>(
    reference,
    `${ROOT}.provider`,
    reading.contained,
    ['Practitioner', 'Organization'],
    true,
  );
  if (resolved.kind === 'problem') {
    reading.issues.push(resolved.issue);
    return { npi: '' };
  }
  const [identifiers, path] =
    resolved.kind === 'inline'
      ? [[resolved.reference.identifier], `${resolved.path}`]
      : [resolved.found.resource.identifier, resolved.found.path];
  const npiAt = findIdentifier(identifiers, path, isNpi);
  const npiPath =
    resolved.kind === 'inline' ? `${path}.identifier.value` : (npiAt?.path ?? `${path}.identifier`);
  const npi =
    need(reading, npiAt?.value, 'provider.npi', npiPath, `An identifier with system ${NPI_SYSTEM}`) ?? '';
  reading.origins.provider = path;
  if (resolved.kind === 'inline') {
    const display = need(
      reading,
      str(resolved.reference.display),
      'provider.organizationName',
      `${path}.display`,
      "The provider's name (display)",
    );
    return { npi, organizationName: display ?? '', providerType: 'facility' };
  }
  const resource = resolved.found.resource;
  if (resource.resourceType === 'Organization') {
    const name = need(
      reading,
      str(resource.name),
      'provider.organizationName',
      `${path}.name`,
      "The organization's name",
    );
    return { npi, organizationName: name ?? '', providerType: 'facility' };
  }
  const name = readName(reading, resource.name?.[0], path, 'provider');
  return { npi, firstName: name.first ?? '', lastName: name.last ?? '', providerType: 'provider' };
}

function readInsurer(reading: Reading, reference: unknown): string {
  const resolved = resolveReference<Organization>(
    reference,
    `${ROOT}.insurer`,
    reading.contained,
    ['Organization'],
    true,
  );
  if (resolved.kind === 'problem') {
    reading.issues.push(resolved.issue);
    return '';
  }
  const [identifiers, path] =
    resolved.kind === 'inline'
      ? [[resolved.reference.identifier], resolved.path]
      : [resolved.found.resource.identifier, resolved.found.path];
  const found = findIdentifier(identifiers, path, isPayerId);
  const at = resolved.kind === 'inline' ? `${path}.identifier.value` : (found?.path ?? `${path}.identifier`);
  const what = `An identifier typed ${PAYER_ID_TYPE} (${IDENTIFIER_TYPE_SYSTEM}) holding the payer id, with system ${PAYER_ID_SYSTEM} or none,`;
  return need(reading, found?.value, 'tradingPartnerServiceId', at, what) ?? '';
}

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
