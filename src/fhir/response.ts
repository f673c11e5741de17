/**
 * A finished check as a CoverageEligibilityResponse (docs/fhir.md "The mapping", field by field): pure, no
 * I/O. The check's id is the response's id, as it is the request's.
 */
import type {
  CodeableConcept,
  CoverageEligibilityResponse,
  CoverageEligibilityResponseError,
  CoverageEligibilityResponseInsurance,
  Extension,
  Resource,
} from '@medplum/fhirtypes';
import type { EligibilityCheckResponse } from '../contract/check-response.ts';
import { benefitItems, planTerm } from './benefit-items.ts';
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
import type { StoredCheck } from './request-resource.ts';
import {
  CONFIDENCE_EXTENSION,
  REJECT_REASON_SYSTEM,
  SERVICE_ERROR_SYSTEM,
  VERDICT_EXTENSION,
} from './systems.ts';

export interface FinishedCheck extends StoredCheck {
  completedAt: Date | null;
  /** The stored result body (docs/contract.md "The check"), COMPLETED or FAILED. */
  result: EligibilityCheckResponse;
}

/** `20260101-20261231` (or one date) → a Period. */
function periodOf(dates: string | undefined) {
  const [start, end] = (dates ?? '').split('-').map(fhirDate);
  return start ? { start, ...(end ? { end } : {}) } : undefined;
}

/** An error of the check: a payer's AAA reason (X12 element 901) or the service's own `SH` code. */
function errorOf(error: { code: string; description: string }): CoverageEligibilityResponseError {
  const system = /^SH\d+$/.test(error.code) ? SERVICE_ERROR_SYSTEM : REJECT_REASON_SYSTEM;
  const code: CodeableConcept = {
    coding: [{ system, code: error.code, display: error.description }],
    text: error.description,
  };
  return { code };
}

function extensionsOf(result: EligibilityCheckResponse): Extension[] {
  const score = result.confidence?.score;
  return [
    ...(typeof score === 'number' ? [{ url: CONFIDENCE_EXTENSION, valueDecimal: score }] : []),
    ...(result.verdict ? [{ url: VERDICT_EXTENSION, valueCode: result.verdict.status }] : []),
  ];
}

function insuranceOf(result: EligibilityCheckResponse): CoverageEligibilityResponseInsurance {
  const benefitPeriod = periodOf(result.planDateInformation?.plan);
  const items = benefitItems(result.benefits ?? [], planTerm(result.benefitsInformation ?? []));
  return {
    coverage: { reference: `#${COVERAGE_ID}` },
    ...(typeof result.planActive === 'boolean' ? { inforce: result.planActive } : {}),
    ...(benefitPeriod ? { benefitPeriod } : {}),
    ...(items.length ? { item: items } : {}),
  };
}

export function eligibilityResponseResource(check: FinishedCheck): CoverageEligibilityResponse {
  const { result, request } = check;
  const completed = result.status === 'COMPLETED';
  const provider = providerOf(request.provider);
  const tradingPartnerServiceId = result.tradingPartnerServiceId ?? request.tradingPartnerServiceId ?? '';
  const groupNumber = result.planInformation?.groupNumber ?? result.subscriber?.groupNumber;
  const contained: Resource[] = [
    patientOf(request.subscriber, result.subscriber),
    ...(provider ? [provider] : []),
    insurerOf(tradingPartnerServiceId, result.payer?.payerName),
    ...(completed
      ? [
          coverageOf(request.subscriber?.memberId, {
            groupNumber,
            planName: result.planInformation?.planName,
          }),
        ]
      : []),
  ];
  const extension = extensionsOf(result);
  const servicedDate = fhirDate(request.encounter?.dateOfService);
  const errors = result.errors ?? [];
  return {
    resourceType: 'CoverageEligibilityResponse',
    id: check.id,
    contained,
    ...(extension.length ? { extension } : {}),
    status: 'active',
    purpose: ['validation', 'benefits'],
    patient: { reference: `#${PATIENT_ID}` },
    ...(servicedDate ? { servicedDate } : {}),
    created: (check.completedAt ?? check.createdAt).toISOString(),
    ...(provider ? { requestor: { reference: `#${PROVIDER_ID}` } } : {}),
    request: { reference: `CoverageEligibilityRequest/${check.id}` },
    outcome: completed ? 'complete' : 'error',
    ...(result.verdict?.summary ? { disposition: result.verdict.summary } : {}),
    insurer: { reference: `#${INSURER_ID}` },
    ...(completed ? { insurance: [insuranceOf(result)] } : {}),
    ...(errors.length ? { error: errors.map(errorOf) } : {}),
  };
}
