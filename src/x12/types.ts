/**
 * Contract between the X12 engine, the benefit interpreter, the payer connectors and the check worker.
 * Changing a shape here is a design change: keep it small and explicit.
 */
import type {
  BenefitsInformation,
  EligibilityCheckError,
  Payer,
  PlanDateInformation,
  PlanInformation,
  Provider,
  ProviderNetwork,
  ResponseDependent,
  ResponseSubscriber,
  SubscriberTraceNumber,
  Warning,
} from '../contract/check-response.ts';

/** Separators read from the ISA segment. `repetition` is null in 4010 (ISA11 = `U`). */
export interface Delimiters {
  element: string;
  component: string;
  repetition: string | null;
  segment: string;
}

/** A problem found while reading X12; `position` is the 1-based segment index in the interchange. */
export interface X12Issue {
  severity: 'error' | 'warning';
  /** Stable machine code, e.g. `SE01_MISMATCH`, `TRUNCATED`, `NO_ISA`; listed in src/x12/issues.ts. */
  code: string;
  /** Human text. Never contains element values that may be PHI (names, ids, dates). */
  message: string;
  position?: number;
  segmentId?: string;
}

/** Thrown (or returned) when the input cannot be read as X12 at all. Never carries PHI. */
export class X12Error extends Error {
  readonly issues: X12Issue[];
  constructor(message: string, issues: X12Issue[]) {
    super(message);
    this.name = 'X12Error';
    this.issues = issues;
  }
}

/** An AAA request validation found in the 271, with the loop it belongs to. */
export interface AaaRejection {
  /** `2100A` source, `2100B` receiver, `2100C` subscriber, `2100D` dependent, `2110C`/`2110D` after an EB, `header`. */
  loop: string;
  validRequest: string | undefined; // AAA01
  code: string; // AAA03
  followUpCode: string | undefined; // AAA04
  position: number;
}

/**
 * What the service reads out of one 271 transaction about the patient the inquiry was for: the contract's
 * result fields (docs/contract.md, "Top-level fields") minus what the service adds itself (id, status,
 * benefits, confidence, meta).
 */
export interface Eligibility271 {
  payer: Payer;
  provider?: Provider;
  subscriber: ResponseSubscriber;
  dependents: ResponseDependent[];
  planInformation?: PlanInformation;
  planDateInformation?: PlanDateInformation;
  /** true when an EB*1..5 applies to the plan; false on EB*6..8; undefined when the 271 does not say. */
  planActive?: boolean;
  planCoverage?: string;
  providerNetwork?: ProviderNetwork;
  /** The patient's EB segments (subscriber's, or the dependent's when the patient is a dependent). */
  benefitsInformation: BenefitsInformation[];
  subscriberTraceNumbers: SubscriberTraceNumber[];
  /** AAA rejections at source, receiver and subscriber level, as the spec's error objects. */
  errors: EligibilityCheckError[];
  /** Every AAA with its loop (including dependents' and 2110's), for the worker's retry decision. */
  rejections: AaaRejection[];
  warnings: Warning[];
  issues: X12Issue[];
  /**
   * Set when other subscribers' loops were ignored (X12_MULTIPLE_SUBSCRIBERS): the input without them, SE01
   * recounted. This, not the input, is what a result's `x12` may show.
   */
  clientX12?: string;
}

/** A 999 or TA1 answer instead of a 271: the payer rejected the inquiry itself. */
export interface InquiryRejected {
  kind: '999' | 'TA1';
  /** Acknowledgment code, e.g. `R` (999 IK5/AK9) or TA1 note code. */
  code: string;
  message: string;
  /** The first segment in error (999 IK301), or `ISA`/`IEA` for a TA1 note about one of their elements. */
  segment?: string;
  /** IK302: the segment's position in the transaction set. */
  segmentPosition?: number;
  /** IK303: the loop it was read in. */
  loop?: string;
  /** The element in error, e.g. `NM109` (999 IK401) or `ISA08` (from the TA1 note code). */
  element?: string;
  /** IK403, else IK304, or the TA1 note code (TA105). */
  errorCode?: string;
  errorDescription?: string;
}

export type Parsed271Outcome =
  | { kind: '271'; result: Eligibility271 }
  | { kind: 'rejected'; rejection: InquiryRejected; issues: X12Issue[] };
