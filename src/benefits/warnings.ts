/**
 * Warning codes the interpreter can add to a check. Each is listed, with when it is raised, in
 * docs/benefit-rules.md "Warning codes". Descriptions name service types, codes and amounts, never PHI.
 */
import type { Warning } from '../contract/check-response.ts';
import { hasCostSharing } from './confidence.ts';
import type { BuiltEntry } from './entry.ts';
import { pushTo } from './select.ts';

const BENEFIT_WARNING_CODES = [
  'PLAN_INACTIVE',
  'PLAN_STATUS_CONFLICT',
  'NO_USABLE_BENEFITS',
  'PLAN_LEVEL_ONLY',
  'SERVICE_TYPE_FALLBACK',
  'SERVICE_NOT_FOUND',
  'CONFLICTING_VALUES',
  'NO_COST_SHARING',
  'OUT_OF_NETWORK_ONLY',
  'OTHER_COVERAGE',
] as const;
export type BenefitWarningCode = (typeof BENEFIT_WARNING_CODES)[number];

function benefitWarning(code: BenefitWarningCode, description: string): Warning {
  return { code, description };
}

export const PLAN_INACTIVE = benefitWarning(
  'PLAN_INACTIVE',
  'The payer reports the plan inactive (EB*6); no benefits are reported.',
);

export const PLAN_STATUS_CONFLICT = benefitWarning(
  'PLAN_STATUS_CONFLICT',
  'The 271 has both active (EB*1-5) and inactive (EB*6-8) plan-level rows; confidence is lowered.',
);

export const NO_USABLE_BENEFITS = benefitWarning(
  'NO_USABLE_BENEFITS',
  'The 271 has no benefit rows for any product service type or for the plan; coverage cannot be determined.',
);

/** Warnings that describe the entries as a whole. */
export function entryWarnings(built: BuiltEntry[]): Warning[] {
  const warnings: Warning[] = [];
  let listed = 0;
  let allPlan = true;
  let fallbacks = '';
  let notFound = '';
  let anyConflicts = false;
  let active = 0;
  let activeWithCostSharing = false;
  let outOnly = '';
  for (const b of built) {
    const entry = b.entry;
    if (b.conflicts.length !== 0) anyConflicts = true;
    if (entry.coverageStatus === 'Not Found') {
      notFound = notFound ? `${notFound}, ${entry.serviceType}` : entry.serviceType;
      continue;
    }
    listed++;
    if (b.tier !== 'plan') allPlan = false;
    if (b.tier !== 'direct') {
      const item = `${entry.serviceType}: ${b.matchedBy}`;
      fallbacks = fallbacks ? `${fallbacks}; ${item}` : item;
    }
    if (entry.coverageStatus !== 'Active Coverage') continue;
    active++;
    if (!activeWithCostSharing && hasCostSharing(entry)) activeWithCostSharing = true;
    if (entry.inNetwork === false) outOnly = outOnly ? `${outOnly}, ${entry.serviceType}` : entry.serviceType;
  }
  if (listed > 0 && allPlan) {
    warnings.push(
      benefitWarning(
        'PLAN_LEVEL_ONLY',
        'The payer returned plan-level (30) benefits only: every entry is derived from them.',
      ),
    );
  } else if (fallbacks) {
    warnings.push(
      benefitWarning(
        'SERVICE_TYPE_FALLBACK',
        `Entries not matched by their own service type code: ${fallbacks}.`,
      ),
    );
  }
  if (notFound) {
    warnings.push(
      benefitWarning('SERVICE_NOT_FOUND', `No benefit rows and no plan status for: ${notFound}.`),
    );
  }
  // Plan-level conflicts repeat on every entry derived from them: one warning per distinct set of conflicts.
  if (anyConflicts) {
    const conflictSets = new Map<string, string[]>();
    for (const b of built) {
      if (b.conflicts.length === 0) continue;
      const key = b.conflicts.join('; ');
      conflictSets.set(key, pushTo(conflictSets.get(key), b.entry.serviceType));
    }
    for (const [conflicts, serviceTypes] of conflictSets) {
      warnings.push(benefitWarning('CONFLICTING_VALUES', `${serviceTypes.join(', ')}: ${conflicts}.`));
    }
  }
  if (active > 0 && !activeWithCostSharing) {
    warnings.push(
      benefitWarning(
        'NO_COST_SHARING',
        'The payer returned no cost sharing (copay, coinsurance, deductible, out-of-pocket) for any service type.',
      ),
    );
  }
  if (outOnly) {
    warnings.push(
      benefitWarning('OUT_OF_NETWORK_ONLY', `Only out-of-network benefits were returned for: ${outOnly}.`),
    );
  }
  return warnings;
}
