/**
 * One intake for every way a check enters the service: a single submit (API and portal), each item of a
 * batch, a monitor (whose runs become checks) and, later, the FHIR face, discovery and estimates. Whatever
 * the entry point, a body goes through the same steps, in this order:
 *
 * 1. the payer it names is looked up in the directory (an id or an alias);
 * 2. the body is repaired where a payer would refuse what a person plainly meant (request-repair.ts), with
 *    that payer's member-id rule, so a repairable value (a date written 1980-01-15) is accepted;
 * 3. it is validated (request.ts: every problem at once, the same messages everywhere);
 * 4. the submit's `reuseWithinHours` is set apart: it says how the check may be answered, not what the
 *    payer is asked;
 * 5. `encounter.charges` are set apart too, with their service types settled: they ask for an estimate
 *    (docs/estimates.md), not something of the payer;
 * 6. the payer's canonical id replaces an alias, so the worker, the metrics and the status answer all name
 *    one payer. An id the directory does not know is kept as sent: the worker fails it with SH01.
 *
 * What each entry point then writes (one row, a batch in one transaction, a monitor) is its own.
 */
import type { EligibilityCheckRequest } from '../contract/check-request.ts';
import type { RequestCorrection } from '../contract/check-response.ts';
import type { PayerEntry } from '../payers/connector.ts';
import { type SettledCharge, settleCharges } from './charges.ts';
import { type FieldProblem, validateCheckRequest } from './request.ts';
import { repairCheckRequest } from './request-repair.ts';

/** What the intake reads of a directory entry. */
export type IntakePayer = Pick<
  PayerEntry,
  'tradingPartnerServiceId' | 'keepMemberIdSeparators' | 'eligibility' | 'enrollment'
> & { payerName?: string };

/** What the intake asks of the payer directory (`PayerDirectory` has it). */
export interface PayerLookup {
  resolvePayer(tradingPartnerServiceId: string): IntakePayer | undefined;
}

export interface IntakeOptions {
  /** The payer directory; without one, ids are kept as sent and member ids lose their separators. */
  payers?: PayerLookup;
  /**
   * false: the check is never answered from an earlier one, whatever the body says (a monitor's runs, whose
   * point is to ask the payer). Default: true.
   */
  allowReuse?: boolean;
  /** The day dates are checked against (a date of service too far ahead); default now. */
  now?: Date;
}

export type Intake =
  | {
      ok: true;
      /** The request as the payer will be asked: repaired, validated, under the canonical payer id. */
      request: EligibilityCheckRequest;
      /** The submit's own reuse window: null for the organization default, 0 for never. */
      reuseWithinHours: number | null;
      /** The repairs made (empty: none), named by field, never by value. */
      corrections: RequestCorrection[];
      /**
       * `encounter.charges`, set apart like the reuse window (the payer is not asked about them), with
       * their service types settled; the caller prices them (charges.ts `priceCharges`). Empty: none.
       */
      charges: SettledCharge[];
    }
  | { ok: false; problems: FieldProblem[] };

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The payer id as the body sends it ('' when it sends none: validation names the field). */
export function sentPayerId(body: unknown): string {
  return isRecord(body) && typeof body.tradingPartnerServiceId === 'string'
    ? body.tradingPartnerServiceId
    : '';
}

/**
 * A payer the directory marks as taking no eligibility inquiries, or as needing an enrollment that is not
 * done, is refused here, before anything is stored or sent: the payer would only answer with an AAA.
 */
function payerProblems(payer: IntakePayer): FieldProblem[] {
  const field = 'tradingPartnerServiceId';
  if (payer.eligibility === false) {
    return [
      {
        field,
        problem: `payer ${payer.tradingPartnerServiceId} ${payer.payerName ? ` (${payer.payerName})` : ''} does not take eligibility inquiries through this service`,
      },
    ];
  }
  if (payer.enrollment === 'required') {
    return [
      {
        field,
        problem: `payer ${payer.tradingPartnerServiceId} ${payer.payerName ? ` (${payer.payerName})` : ''} requires enrollment before eligibility checks, and it is not done (set "enrollment": "done" in the payer directory once it is)`,
      },
    ];
  }
  return [];
}

/** A submit body taken in: the request to store, or every problem with it. */
export function takeIn(body: unknown, options: IntakeOptions = {}): Intake {
  const sentId = sentPayerId(body);
  const payer = sentId ? options.payers?.resolvePayer(sentId) : undefined;
  const repaired = repairCheckRequest(body, {
    keepMemberIdSeparators: payer?.keepMemberIdSeparators === true,
  });
  const problems = validateCheckRequest(repaired.body, options.now);
  if (payer) problems.push(...payerProblems(payer));
  if (problems.length) return { ok: false, problems };
  const { reuseWithinHours, ...sent } = repaired.body as EligibilityCheckRequest;
  const { charges, asked } = setChargesApart(sent);
  const request =
    payer && payer.tradingPartnerServiceId !== asked.tradingPartnerServiceId
      ? { ...asked, tradingPartnerServiceId: payer.tradingPartnerServiceId }
      : asked;
  return {
    ok: true,
    request,
    reuseWithinHours: options.allowReuse === false ? 0 : (reuseWithinHours ?? null),
    corrections: repaired.corrections,
    charges: settleCharges(charges),
  };
}

/** The request without `encounter.charges` (and without an encounter that held nothing else). */
function setChargesApart(request: EligibilityCheckRequest) {
  const { encounter, ...rest } = request;
  if (!encounter?.charges) return { charges: [], asked: request };
  const { charges, ...kept } = encounter;
  return { charges, asked: Object.keys(kept).length ? { ...rest, encounter: kept } : rest };
}
