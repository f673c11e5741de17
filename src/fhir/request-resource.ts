/**
 * A stored check as the CoverageEligibilityRequest the service keeps (the 201 of a submit and
 * `GET /fhir/R4/CoverageEligibilityRequest/{id}`): the request as the payer was asked, after the intake's
 * repairs, with its participants contained. What the client sent beyond that (its own ids, narrative,
 * extensions) is not stored.
 */
import type { CoverageEligibilityRequest, Resource } from '@medplum/fhirtypes';
import type { StoredCheckRequest } from '../contract/check-request.ts';
import { serviceTypeName } from '../x12/codes.ts';
import {
  COVERAGE_ID,
  coverageOf,
  fhirDate,
  INSURER_ID,
  insurerOf,
  PATIENT_ID,
  PROVIDER_ID,
  patientOf,
  providerOf,
} from './participants.ts';
import { SERVICE_TYPE_SYSTEM } from './systems.ts';

export interface StoredCheck {
  id: string;
  createdAt: Date;
  /** As stored: a purged check's keeps its payer id only. */
  request: Partial<StoredCheckRequest>;
}

/** An X12 service type code as a CodeableConcept. */
export function serviceTypeConcept(code: string, text?: string) {
  const display = serviceTypeName(code);
  return {
    coding: [{ system: SERVICE_TYPE_SYSTEM, code, ...(display ? { display } : {}) }],
    ...(text ? { text } : {}),
  };
}

export function eligibilityRequestResource(check: StoredCheck): CoverageEligibilityRequest {
  const { request } = check;
  const provider = providerOf(request.provider);
  const contained: Resource[] = [
    patientOf(request.subscriber),
    ...(provider ? [provider] : []),
    insurerOf(request.tradingPartnerServiceId ?? ''),
    coverageOf(request.subscriber?.memberId),
  ];
  const servicedDate = fhirDate(request.encounter?.dateOfService);
  const codes = request.encounter?.serviceTypeCodes ?? [];
  return {
    resourceType: 'CoverageEligibilityRequest',
    id: check.id,
    contained,
    status: 'active',
    purpose: ['validation', 'benefits'],
    patient: { reference: `#${PATIENT_ID}` },
    ...(servicedDate ? { servicedDate } : {}),
    created: check.createdAt.toISOString(),
    ...(provider ? { provider: { reference: `#${PROVIDER_ID}` } } : {}),
    insurer: { reference: `#${INSURER_ID}` },
    insurance: [{ focal: true, coverage: { reference: `#${COVERAGE_ID}` } }],
    ...(codes.length ? { item: codes.map((code) => ({ category: serviceTypeConcept(code) })) } : {}),
  };
}
