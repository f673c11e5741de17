/**
 * The contained resources the service's FHIR resources carry: the patient (the subscriber), the provider,
 * the insurer and the coverage, built from a stored check. Contained, because the service keeps no Patient,
 * Organization or Coverage resources of its own to reference.
 */
import type { Coverage, Organization, Patient, Practitioner } from '@medplum/fhirtypes';
import type { EligibilityCheckRequest } from '../contract/check-request.ts';
import { IDENTIFIER_TYPE_SYSTEM, NPI_SYSTEM, PAYER_ID_SYSTEM, PAYER_ID_TYPE } from './systems.ts';

export const PATIENT_ID = 'patient';
export const PROVIDER_ID = 'provider';
export const INSURER_ID = 'insurer';
export const COVERAGE_ID = 'coverage';

/** `19800115` → `1980-01-15`; undefined for anything else. */
export function fhirDate(date8: string | undefined): string | undefined {
  const m = date8 ? /^(\d{4})(\d{2})(\d{2})$/.exec(date8) : null;
  return m ? `${m[1]}-${m[2]}-${m[3]}` : undefined;
}

const GENDERS = { M: 'male', F: 'female', U: 'unknown' } as const;

/**
 * The subscriber as a Patient: what the payer answered when it did (`answered`), else what was asked. A
 * purged check keeps neither, and its Patient has no name.
 */
export function patientOf(
  asked: Partial<EligibilityCheckRequest['subscriber']> | undefined,
  answered?: {
    firstName?: string;
    lastName?: string;
    middleName?: string;
    dateOfBirth?: string;
    gender?: string;
  },
): Patient {
  const person = { ...asked, ...definedOnly(answered ?? {}) };
  const given = [person.firstName, person.middleName].filter((n): n is string => !!n);
  const birthDate = fhirDate(person.dateOfBirth);
  const gender = GENDERS[person.gender as keyof typeof GENDERS];
  return {
    resourceType: 'Patient',
    id: PATIENT_ID,
    ...(person.lastName || given.length
      ? {
          name: [
            { ...(person.lastName ? { family: person.lastName } : {}), ...(given.length ? { given } : {}) },
          ],
        }
      : {}),
    ...(birthDate ? { birthDate } : {}),
    ...(gender ? { gender } : {}),
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(o).filter(([, v]) => v !== undefined && v !== null && v !== ''),
  ) as Partial<T>;
}

export function providerOf(
  provider: EligibilityCheckRequest['provider'] | undefined,
): Practitioner | Organization | undefined {
  if (!provider) return undefined;
  const identifier = [{ system: NPI_SYSTEM, value: provider.npi }];
  if (provider.organizationName) {
    return { resourceType: 'Organization', id: PROVIDER_ID, identifier, name: provider.organizationName };
  }
  return {
    resourceType: 'Practitioner',
    id: PROVIDER_ID,
    identifier,
    name: [{ family: provider.lastName, given: provider.firstName ? [provider.firstName] : [] }],
  };
}

export function insurerOf(tradingPartnerServiceId: string, payerName?: string): Organization {
  return {
    resourceType: 'Organization',
    id: INSURER_ID,
    identifier: [
      {
        type: { coding: [{ system: IDENTIFIER_TYPE_SYSTEM, code: PAYER_ID_TYPE }] },
        system: PAYER_ID_SYSTEM,
        value: tradingPartnerServiceId,
      },
    ],
    ...(payerName ? { name: payerName } : {}),
  };
}

export function coverageOf(
  memberId: string | undefined,
  options: { status?: Coverage['status']; groupNumber?: string; planName?: string } = {},
): Coverage {
  const classes = [
    ...(options.groupNumber
      ? [
          {
            type: {
              coding: [{ system: 'http://terminology.hl7.org/CodeSystem/coverage-class', code: 'group' }],
            },
            value: options.groupNumber,
          },
        ]
      : []),
    ...(options.planName
      ? [
          {
            type: {
              coding: [{ system: 'http://terminology.hl7.org/CodeSystem/coverage-class', code: 'plan' }],
            },
            value: options.planName,
            name: options.planName,
          },
        ]
      : []),
  ];
  return {
    resourceType: 'Coverage',
    id: COVERAGE_ID,
    status: options.status ?? 'active',
    ...(memberId ? { subscriberId: memberId } : {}),
    subscriber: { reference: `#${PATIENT_ID}` },
    beneficiary: { reference: `#${PATIENT_ID}` },
    relationship: {
      coding: [{ system: 'http://terminology.hl7.org/CodeSystem/subscriber-relationship', code: 'self' }],
    },
    payor: [{ reference: `#${INSURER_ID}` }],
    ...(classes.length ? { class: classes } : {}),
  };
}
