/**
 * The charges a check is asked to estimate (`encounter.charges`, and the body of
 * `POST /api/eligibility/{id}/estimate`): the rules the schema cannot say, then pricing from the
 * organization's fee schedule. Problems name the field and never echo a value but the procedure code (a
 * billing code, not patient data).
 */
import { Compile } from 'typebox/compile';
import { PRODUCT_SERVICE_TYPES } from '../contract/check-response.ts';
import type { Charge, PricedCharge } from '../contract/estimate.ts';
import { EstimateRequest } from '../contract/estimate.ts';
import { settleServiceType } from '../estimates/service-type.ts';
import type { Queryable } from '../store/db.ts';
import { type FeeRow, findFees } from '../store/fee-schedule.ts';

export interface ChargeProblem {
  field: string;
  problem: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const CODE = /^[A-Z0-9]{1,2}$/;

/** Whole cents: 12.5 and 12.50 are fine, 12.505 is not. */
const wholeCents = (n: number) => Math.abs(n * 100 - Math.round(n * 100)) < 1e-6;

/** The rules beyond the schema, for each charge that is an object: run whatever the schema said. */
export function chargeProblems(charges: unknown, at: string): ChargeProblem[] {
  if (!Array.isArray(charges)) return [];
  const problems: ChargeProblem[] = [];
  charges.forEach((charge, i) => {
    if (!isRecord(charge)) return;
    const field = `${at}[${i}]`;
    const { serviceType, serviceTypeCode, amount, procedureCode } = charge;
    // A serviceType or code of the wrong shape is the schema's to name; the pairing rules are said here.
    const typeKnown =
      serviceType === undefined || (PRODUCT_SERVICE_TYPES as readonly unknown[]).includes(serviceType);
    const codeShaped =
      serviceTypeCode === undefined || (typeof serviceTypeCode === 'string' && CODE.test(serviceTypeCode));
    if (typeKnown && codeShaped) {
      const settled = settleServiceType({
        serviceType: serviceType as Charge['serviceType'],
        serviceTypeCode: serviceTypeCode as string | undefined,
      });
      if (!settled.ok) problems.push({ field, problem: settled.problem });
    }
    if (typeof amount === 'number' && !wholeCents(amount))
      problems.push({
        field: `${field}.amount`,
        problem: 'must be dollars with at most two decimals, e.g. 120.50',
      });
    if (amount === undefined && procedureCode === undefined)
      problems.push({
        field,
        problem: 'needs an amount, or a procedureCode to price it from the fee schedule',
      });
  });
  return problems;
}

/** A valid charge with its service type settled (both the product name and the code). */
export type SettledCharge = Charge & Pick<PricedCharge, 'serviceType' | 'serviceTypeCode'>;

/** Charges that passed `chargeProblems` and the schema, with their service types filled in. */
export function settleCharges(charges: readonly Charge[]): SettledCharge[] {
  return charges.map((charge) => {
    const settled = settleServiceType(charge);
    if (!settled.ok) throw new Error('settleCharges: a charge that failed validation');
    const code = charge.procedureCode?.toUpperCase();
    return {
      ...charge,
      ...(code ? { procedureCode: code } : {}),
      serviceType: settled.serviceType,
      serviceTypeCode: settled.serviceTypeCode,
    };
  });
}

/** The procedure codes whose amount the fee schedule must supply. */
export const unpricedCodes = (charges: readonly Charge[]): string[] =>
  charges.filter((c) => c.amount === undefined && c.procedureCode).map((c) => c.procedureCode!);

/**
 * Amounts from the fee rows (`findFees`): the payer's own row first, else the organization's default.
 * A charge with neither is a problem naming its procedure code.
 */
export function priceWithFees(
  charges: readonly SettledCharge[],
  fees: readonly FeeRow[],
  payerId: string,
  at: string,
): { ok: true; charges: PricedCharge[] } | { ok: false; problems: ChargeProblem[] } {
  const problems: ChargeProblem[] = [];
  const priced = charges.map((charge, i): PricedCharge => {
    const { serviceType, serviceTypeCode, procedureCode } = charge;
    const base = { serviceType, serviceTypeCode, ...(procedureCode ? { procedureCode } : {}) };
    if (charge.amount !== undefined) return { ...base, amount: charge.amount, amountSource: 'request' };
    const row =
      fees.find((f) => f.procedureCode === procedureCode && f.payerId === payerId) ??
      fees.find((f) => f.procedureCode === procedureCode && f.payerId === '');
    if (!row)
      problems.push({
        field: `${at}[${i}].amount`,
        problem: `is absent and procedure code ${procedureCode} is not in the organization's fee schedule (for this payer or as a default)`,
      });
    return { ...base, amount: (row?.amountCents ?? 0) / 100, amountSource: 'feeSchedule' };
  });
  return problems.length ? { ok: false, problems } : { ok: true, charges: priced };
}

/** Settles and prices charges for one organization and payer (one query when any needs the fee schedule). */
export async function priceCharges(
  db: Queryable,
  organizationId: string,
  payerId: string,
  charges: readonly Charge[],
  at: string,
) {
  const settled = settleCharges(charges);
  const fees = await findFees(db, organizationId, unpricedCodes(settled));
  return priceWithFees(settled, fees, payerId, at);
}

const estimateRequest = Compile(EstimateRequest);

/** The body of `POST /api/eligibility/{id}/estimate`: its charges, or every problem with it. */
export function readEstimateRequest(
  body: unknown,
): { ok: true; charges: Charge[] } | { ok: false; problems: ChargeProblem[] } {
  if (!isRecord(body))
    return { ok: false, problems: [{ field: 'body', problem: 'must be a JSON object with charges' }] };
  const problems: ChargeProblem[] = [];
  if (!estimateRequest.Check(body)) {
    for (const e of estimateRequest.Errors(body)) {
      const field = e.instancePath
        .split('/')
        .filter(Boolean)
        .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`))
        .join('')
        .replace(/^\./, '');
      problems.push({ field: field || 'body', problem: schemaProblem(e.keyword, e.message, e.params) });
    }
  }
  problems.push(...chargeProblems(body.charges, 'charges'));
  const unique = [...new Map(problems.map((p) => [`${p.field} ${p.problem}`, p])).values()].slice(0, 20);
  return unique.length ? { ok: false, problems: unique } : { ok: true, charges: body.charges as Charge[] };
}

function schemaProblem(keyword: string, message: string, params: unknown): string {
  const p = params as { additionalProperties?: string[]; requiredProperties?: string[] };
  if (keyword === 'additionalProperties' && p.additionalProperties)
    return `has an unknown field (${p.additionalProperties.filter((n) => /^[A-Za-z]{1,40}$/.test(n)).join(', ') || 'unnamed'})`;
  if (keyword === 'required' && p.requiredProperties) return `needs ${p.requiredProperties.join(', ')}`;
  return message;
}
