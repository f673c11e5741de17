/**
 * The fee schedule's operator actions, beside tenancy's (src/tenancy/admin-ops.ts): `fees.import`
 * (`{org, csv}`: the whole schedule, replaced when every row is good) and `fees.show` (`{org}`: the row
 * count and the first rows). The CLI runs them on the store, or through the running server's local admin
 * endpoint, as every admin operation.
 */
import type { Db } from '../store/db.ts';
import { countFees, listFees } from '../store/fee-schedule.ts';
import { organizationExists } from '../store/organizations.ts';
import { AdminInputError } from '../tenancy/admin-ops.ts';
import { importFeeSchedule } from './fee-schedule.ts';

export const FEE_OPS = ['fees.import', 'fees.show'] as const;
export const isFeeOp = (op: string): op is (typeof FEE_OPS)[number] =>
  (FEE_OPS as readonly string[]).includes(op);

const SHOWN_ROWS = 100;

export async function runFeeOp(db: Db, op: (typeof FEE_OPS)[number], args: Record<string, unknown>) {
  const org = args.org;
  if (typeof org !== 'string' || !org) throw new AdminInputError('--org is required');
  if (!(await organizationExists(db, org))) throw new AdminInputError(`no organization with id ${org}`);
  if (op === 'fees.show') {
    const rows = await listFees(db, org, SHOWN_ROWS);
    return {
      total: await countFees(db, org),
      rows: rows.map((r) => ({
        procedureCode: r.procedureCode,
        payerId: r.payerId,
        allowedAmount: r.amountCents / 100,
      })),
    };
  }
  if (typeof args.csv !== 'string') throw new AdminInputError('fees.import needs the CSV text (--file)');
  const imported = await importFeeSchedule(db, org, args.csv);
  if (imported.ok) return { rows: imported.rows };
  const listed = imported.problems.map((p) => `line ${p.line}: ${p.message}`).join('; ');
  const more = imported.problemCount - imported.problems.length;
  throw new AdminInputError(
    `the fee schedule was not changed: ${imported.problemCount} bad row${imported.problemCount === 1 ? '' : 's'} (${listed}${more > 0 ? `; and ${more} more` : ''})`,
  );
}
