import type {
  BenefitEntry,
  BenefitsInformation,
  CheckConfidence,
  OtherCoverage,
  Warning,
} from '../contract/check-response.ts';

export interface InterpretInput {
  benefitsInformation: BenefitsInformation[];
  /** From the 271: true active, false inactive, undefined unknown. */
  planActive: boolean | undefined;
  /** X12 service type codes the client asked for (encounter.serviceTypeCodes); may be empty. */
  requestedServiceTypeCodes: string[];
  /**
   * The date of service (encounter.dateOfService), else today, as `YYYYMMDD`: it picks the current benefit
   * period where rows carry DTP 291/292. The interpreter reads no clock; without it the latest period begun wins.
   */
  asOf?: string;
}

export interface Interpretation {
  /** Exactly one entry per product service type, or [] when coverage cannot be determined. */
  benefits: BenefitEntry[];
  /** Check-level summary: `score` and named criteria (true = holds). */
  confidence: CheckConfidence;
  /** e.g. PLAN_INACTIVE, SERVICE_TYPE_FALLBACK; codes documented in docs/benefit-rules.md. */
  warnings: Warning[];
  /** The other coverage the 271 reports (EB*R rows), with its order; absent when it reports none. */
  otherCoverage?: OtherCoverage[];
}

export type InterpretBenefits = (input: InterpretInput) => Interpretation;
