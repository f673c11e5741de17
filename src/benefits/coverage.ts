/**
 * coverageStatus: Active Coverage, Not Covered or Not Found for one product. docs/benefit-rules.md,
 * "coverageStatus".
 */
import type { ProductContext } from './fields.ts';
import { ACTIVE_CODES } from './rows.ts';
import { type MatchedRow, networkClassOf } from './select.ts';

export type CoverageStatus = 'Active Coverage' | 'Not Covered' | 'Not Found';

/**
 * `Not Covered` when an EB*I for the service (not plan level, not only out-of-network) is at least as
 * specific as any evidence of coverage; `Active Coverage` when an EB*1–5 matches the service or the plan is
 * active; inferred `Active Coverage` (named) from cost-sharing rows alone; otherwise `Not Found`.
 */
export function coverageStatus(ctx: ProductContext, planActive: boolean | undefined): CoverageStatus {
  let firstNotCoveredHere: MatchedRow | undefined;
  let hasActive = false;
  let hasCovered = false;
  let coveredRank = Number.POSITIVE_INFINITY;
  for (const m of ctx.matched) {
    if (m.row.code === 'I') {
      if (m.match.tier === 'plan') continue;
      if (networkClassOf(m.row.network) !== 'out') firstNotCoveredHere ??= m;
      else
        ctx.findings.add(
          'none',
          `not covered out of network (EB*I with EB12 N for ${m.match.code}); in-network coverage reported`,
        );
      continue;
    }
    hasCovered = true;
    if (m.match.rank < coveredRank) coveredRank = m.match.rank;
    if (ACTIVE_CODES.has(m.row.code)) hasActive = true;
  }
  const first = firstNotCoveredHere;
  if (first && first.match.rank <= coveredRank) {
    if (first.match.rank === coveredRank) {
      ctx.findings.conflict(
        `conflicting coverage for ${first.match.code}: EB*I (not covered) and covered rows; reported Not Covered`,
      );
    }
    ctx.findings.add('none', `not covered (EB*I for ${first.match.code})`);
    return 'Not Covered';
  }
  if (hasActive || planActive === true) return 'Active Coverage';
  if (hasCovered) {
    ctx.findings.add(
      'coverageInferred',
      'no active-coverage row and no plan status: coverage inferred from benefit rows',
    );
    return 'Active Coverage';
  }
  return 'Not Found';
}
