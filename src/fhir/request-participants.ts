/**
 * Reading the participants of a CoverageEligibilityRequest (src/fhir/request.ts): the patient, the
 * provider and the insurer, each from a contained resource or an inline identifier, noting where each
 * contract field came from and what is missing.
 */
import type { HumanName, Identifier, Organization, Patient, Practitioner } from '@medplum/fhirtypes';
import type { EligibilityCheckRequest } from '../contract/check-request.ts';
import type { FhirIssue } from './outcome.ts';
import { type containedById, type Resolved, resolveReference } from './references.ts';
import { IDENTIFIER_TYPE_SYSTEM, NPI_SYSTEM, PAYER_ID_SYSTEM, PAYER_ID_TYPE } from './systems.ts';

const ROOT = 'CoverageEligibilityRequest';

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v.trim() ? v.trim() : undefined;

/** The reading in progress: the body's parts, where each came from, and the problems so far. */
export interface Reading {
  issues: FhirIssue[];
  origins: Record<string, string>;
  contained: ReturnType<typeof containedById>;
}

export function need<T>(
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

export function readPatient(reading: Reading, patient: Resolved<Patient>) {
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

export function readProvider(reading: Reading, reference: unknown): EligibilityCheckRequest['provider'] {
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

export function readInsurer(reading: Reading, reference: unknown): string {
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
