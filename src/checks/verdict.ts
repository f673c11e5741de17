/**
 * The verdict: what a finished check means for the visit, in one line a person at the front desk can act
 * on (issue 16). It is read off the result body alone, so the API, the portal, the CLI and the checks
 * list all say the same thing, and a stored body that predates the field can be given one on read.
 *
 * - FAILED: the check did not get an answer about coverage; the first error says why.
 * - INACTIVE: the payer answered that the plan is not active (EB*6-8 at plan level).
 * - ACTIVE: the payer answered that the plan is active (EB*1-5 at plan level) and the answer has something
 *   for the services checked. Other coverage the payer reports is said too: "another payer is primary: …".
 * - UNDETERMINED: the payer answered, but the answer says neither (no plan-level status row), or it says the
 *   plan is active but has no benefits for any service the product reports (warning NO_USABLE_BENEFITS, e.g.
 *   only pharmacy and vision rows): "active" would read as covered for the visit, which nobody can say.
 */
import { NO_USABLE_BENEFITS } from '../benefits/warnings.ts';
import type { EligibilityCheckResponse, OtherCoverage, Verdict } from '../contract/check-response.ts';

/** The end of a D8 or RD8 date when the value is a range (a single date is when a span began, not ended). */
function rangeEnd(value: string | undefined): string | undefined {
  return value?.match(/^\d{8}-(\d{8})$/)?.[1];
}

/** `20251231` → `2025-12-31`, for the summary line (the `since` field keeps the spec's YYYYMMDD). */
function readableDate(yyyymmdd: string): string {
  return `${yyyymmdd.slice(0, 4)}-${yyyymmdd.slice(4, 6)}-${yyyymmdd.slice(6, 8)}`;
}

function failedVerdict(body: EligibilityCheckResponse): Verdict {
  const first = body.errors?.[0];
  if (!first) return { status: 'FAILED', summary: 'Could not check: the check failed without an error' };
  const advice = first.followupAction ? ` (${first.followupAction})` : '';
  return {
    status: 'FAILED',
    summary: `Could not check: ${first.description}${advice}`,
    reason: first.code,
  };
}

/** "ACME HEALTH (Commercial)": the other payer, or its insurance type when the 271 names no payer. */
function coverageName(c: OtherCoverage): string {
  const name = c.payerName ?? c.planCoverage ?? c.insuranceType ?? 'another payer';
  return c.payerName && c.insuranceType ? `${name} (${c.insuranceType})` : name;
}

const ORDER_WORDS: Readonly<Record<OtherCoverage['order'], string>> = {
  PRIMARY: 'primary',
  SECONDARY: 'secondary',
  TERTIARY: 'tertiary',
  UNKNOWN: 'order not stated',
};

/**
 * Coordination of benefits in the summary (docs/benefit-rules.md section 8): a payer that pays first
 * changes what the front desk does, so it is said first; other coverage after it, with its order.
 */
function otherCoverageClause(coverage: readonly OtherCoverage[] | undefined): string {
  if (!coverage?.length) return '';
  const primary = coverage.filter((c) => c.order === 'PRIMARY');
  if (primary.length) return `; another payer is primary: ${primary.map(coverageName).join(', ')}`;
  return `; other coverage: ${coverage.map((c) => `${coverageName(c)}, ${ORDER_WORDS[c.order]}`).join('; ')}`;
}

function activeVerdict(body: EligibilityCheckResponse): Verdict {
  const plan = body.planInformation?.planName ?? body.planCoverage;
  const network = body.providerNetwork?.status;
  const parts = [plan, network?.toLowerCase()].filter((p): p is string => Boolean(p));
  const summary = parts.length ? `Coverage active: ${parts.join(', ')}` : 'Coverage active';
  return { status: 'ACTIVE', summary: `${summary}${otherCoverageClause(body.otherCoverage)}` };
}

function inactiveVerdict(body: EligibilityCheckResponse): Verdict {
  const dates = body.planDateInformation;
  const since = rangeEnd(dates?.plan) ?? rangeEnd(dates?.eligibility);
  if (!since) return { status: 'INACTIVE', summary: 'Coverage INACTIVE' };
  return { status: 'INACTIVE', summary: `Coverage INACTIVE since ${readableDate(since)}`, since };
}

/** The verdict of a finished check; undefined while it is IN_PROGRESS. */
export function verdictOf(body: EligibilityCheckResponse): Verdict | undefined {
  switch (body.status) {
    case 'FAILED':
      return failedVerdict(body);
    case 'COMPLETED':
      if (body.planActive === true && body.warnings?.some((w) => w.code === NO_USABLE_BENEFITS.code)) {
        return {
          status: 'UNDETERMINED',
          summary:
            'Coverage could not be determined: the payer says the plan is active but lists no benefits for the services checked',
        };
      }
      if (body.planActive === true) return activeVerdict(body);
      if (body.planActive === false) return inactiveVerdict(body);
      return {
        status: 'UNDETERMINED',
        summary: 'Coverage could not be determined: the payer answered without a plan status',
      };
    default:
      return undefined;
  }
}
