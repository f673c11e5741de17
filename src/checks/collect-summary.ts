/**
 * "Collect at desk": a check's estimates (docs/estimates.md) as lines a person reads, for the CLI summary,
 * the portal's check page, its print view and its PDF, so the four say the same thing. Pure.
 */
import type { Estimate, EstimateTotal } from '../contract/estimate.ts';

export interface CollectLine {
  /** `Occupational Therapy (AD, 97165): $800.00 allowed`. */
  charge: string;
  /** `Patient pays $560.00, plan pays $240.00`, or why it cannot be computed. */
  outcome: string;
  /** Each step's arithmetic, e.g. `coinsurance 20% of $300.00 = $60.00`. */
  steps: string[];
  assumptions: string[];
  /** `confidence 0.75`; empty when not computed. */
  confidence: string;
}

export interface CollectSummary {
  lines: CollectLine[];
  /** `Collect $600.00 (plan pays $380.00)`, and how many charges are left out. */
  total: string;
}

const dollars = (n: number) => `$${n.toFixed(2)}`;

export function collectAtDesk(
  estimates: readonly Estimate[],
  total: EstimateTotal | undefined,
): CollectSummary {
  const lines = estimates.map((e): CollectLine => {
    const codes = [e.serviceTypeCode, e.procedureCode].filter(Boolean).join(', ');
    const source = e.amountSource === 'feeSchedule' ? ' (fee schedule)' : '';
    return {
      charge: `${e.serviceType} (${codes}): ${dollars(e.amount)} allowed${source}`,
      outcome:
        e.patientPays === null || e.planPays === null
          ? `Cannot be computed: ${e.reason ?? 'no usable benefits'}`
          : `Patient pays ${dollars(e.patientPays)}, plan pays ${dollars(e.planPays)}`,
      steps: e.steps.map((s) => `${s.amount < 0 ? '−' : '+'} ${dollars(Math.abs(s.amount))}  ${s.basis}`),
      assumptions: e.assumptions,
      confidence: e.patientPays === null ? '' : `confidence ${e.confidence.toFixed(2)}`,
    };
  });
  const left = total?.notComputed
    ? `; ${total.notComputed} charge${total.notComputed === 1 ? '' : 's'} could not be estimated`
    : '';
  return {
    lines,
    total: total ? `Collect ${dollars(total.patientPays)} (plan pays ${dollars(total.planPays)})${left}` : '',
  };
}
