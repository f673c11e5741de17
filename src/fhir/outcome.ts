/**
 * OperationOutcome, the one error body of the FHIR face: every refusal under /fhir is one, built here. An
 * issue names what was wrong (`code`, R4 IssueType) and where (`expression`, a FHIRPath into the resource
 * sent), in words that never repeat a value of the request (no PHI).
 */
import type { OperationOutcome, OperationOutcomeIssue } from '@medplum/fhirtypes';

/** The R4 IssueType codes this service answers with. */
export type IssueCode =
  | 'invalid'
  | 'structure'
  | 'required'
  | 'value'
  | 'code-invalid'
  | 'not-supported'
  | 'conflict'
  | 'login'
  | 'forbidden'
  | 'not-found'
  | 'too-costly'
  | 'throttled'
  | 'exception'
  | 'transient';

export interface FhirIssue {
  code: IssueCode;
  /** What is wrong and what to send instead; never a value from the request. */
  diagnostics: string;
  /** FHIRPath of the element at fault, e.g. `CoverageEligibilityRequest.contained[0].birthDate`. */
  expression?: string;
}

export function operationOutcome(issues: readonly FhirIssue[]): OperationOutcome {
  return {
    resourceType: 'OperationOutcome',
    issue: issues.map(
      (issue): OperationOutcomeIssue => ({
        severity: 'error',
        code: issue.code,
        diagnostics: issue.diagnostics,
        ...(issue.expression ? { expression: [issue.expression] } : {}),
      }),
    ),
  };
}

/** A refusal of the FHIR face: its HTTP status and the issues of its OperationOutcome. */
export class FhirError extends Error {
  constructor(
    readonly statusCode: number,
    readonly issues: readonly FhirIssue[],
    readonly headers: Record<string, string> = {},
  ) {
    super(issues.map((i) => i.diagnostics).join(' '));
    this.name = 'FhirError';
  }

  toOutcome(): OperationOutcome {
    return operationOutcome(this.issues);
  }
}

/** The issue type of an HTTP refusal the API layer made (authentication, limits, routing). */
export function issueCodeOfStatus(status: number): IssueCode {
  switch (status) {
    case 401:
      return 'login';
    case 403:
      return 'forbidden';
    case 404:
      return 'not-found';
    case 405:
    case 415:
      return 'not-supported';
    case 413:
      return 'too-costly';
    case 429:
      return 'throttled';
    case 503:
      return 'transient';
    default:
      return status >= 500 ? 'exception' : 'invalid';
  }
}
