/**
 * One intake for every way a check enters the service: a single submit (API and portal), each item of a
 * batch, a monitor (whose runs become checks) and, later, the FHIR face, discovery and estimates. Whatever
 * the entry point, a body goes through the same steps, in this order:
 *
 * 1. the payer it names is looked up in the directory (an id or an alias);
 * 2. the body is repaired where a payer would refuse what a person plainly meant (request-repair.ts), with
 *    that payer's member-id rule, so a repairable value (a date written 1980-01-15) is accepted;
 * 3. it is validated (request.ts: every problem at once, the same messages everywhere), and against what the
 *    payer's directory entry declares (no eligibility inquiries, enrollment not done, member ids that are
 *    MBIs: member-id-format.ts);
 * 4. the submit's `reuseWithinHours` is set apart: it says how the check may be answered, not what the
 *    payer is asked;
 * 5. `encounter.charges` are set apart too, with their service types settled: they ask for an estimate
 *    (docs/estimates.md), not something of the payer;
 * 6. the payer's canonical id replaces an alias, so the worker, the metrics and the status answer all name
 *    one payer. An id the directory does not know is kept as sent: the worker fails it with SH01.
 *
 * What each entry point then writes (one row, a batch in one transaction, a monitor) is its own.
 *
 * An insurance discovery's inquiry (`demographicSearch`) is the one request without a member id: it asks
 * the payer by name and date of birth, and the payer must take such searches (docs/discovery.md).
 */
import type { EligibilityCheckRequest, StoredCheckRequest } from '../contract/check-request.ts';
import type { RequestCorrection } from '../contract/check-response.ts';
import type { PayerEntry } from '../payers/connector.ts';
import { type SettledCharge, settleCharges } from './charges.ts';
import { mbiProblem } from './member-id-format.ts';
import { type FieldProblem, validateCheckRequest } from './request.ts';
import { repairCheckRequest } from './request-repair.ts';

/** What the intake reads of a directory entry. */
export type IntakePayer = Pick<
  PayerEntry,
  | 'tradingPartnerServiceId'
  | 'keepMemberIdSeparators'
  | 'eligibility'
  | 'enrollment'
  | 'connections'
  | 'memberIdFormat'
  | 'demographicSearch'
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

export type Intake<R extends StoredCheckRequest = EligibilityCheckRequest> =
  | {
      ok: true;
      /** The request as the payer will be asked: repaired, validated, under the canonical payer id. */
      request: R;
      /** The submit's own reuse window: null for the organization default, 0 for never. */
      reuseWithinHours: number | null;
      /** The repairs made (empty: none), named by field, never by value. */
      corrections: RequestCorrection[];
      /**
       * The connection the payer is asked through first ('' without one): stored on the check so the claim
       * can share the workers across connections (src/store/queue/claim.ts).
       */
      connection: string;
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
function payerProblems(payer: IntakePayer, demographicSearch: boolean): FieldProblem[] {
  const field = 'tradingPartnerServiceId';
  if (demographicSearch && payer.demographicSearch !== true) {
    return [
      {
        field,
        problem: `payer ${payer.tradingPartnerServiceId} does not take demographic searches (its directory entry does not say "demographicSearch": true)`,
      },
    ];
  }
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

/**
 * A payer whose member ids are MBIs (`memberIdFormat: "mbi"`) would answer any other id with AAA 72: such an
 * id is refused here, with what an MBI looks like (member-id-format.ts). Only once the id is otherwise valid.
 */
function memberIdProblems(payer: IntakePayer, body: unknown, problems: FieldProblem[]): FieldProblem[] {
  if (payer.memberIdFormat !== 'mbi') return [];
  const field = 'subscriber.memberId';
  if (problems.some((p) => p.field === field)) return [];
  const sub = isRecord(body) && isRecord(body.subscriber) ? body.subscriber : undefined;
  const problem = typeof sub?.memberId === 'string' ? mbiProblem(sub.memberId) : undefined;
  return problem ? [{ field, problem }] : [];
}

/** A submit body taken in: the request to store, or every problem with it. */
export function takeIn(body: unknown, options: IntakeOptions = {}): Intake {
  // Validated with the member id required: the request has one.
  return intake(body, options, false) as Intake;
}

/**
 * An insurance discovery's inquiry taken in: a submit body without a member id, to a payer that takes
 * demographic searches (its directory entry says `demographicSearch`); the same repairs and messages.
 */
export function takeInDemographicSearch(
  body: unknown,
  options: IntakeOptions = {},
): Intake<StoredCheckRequest> {
  return intake(body, { ...options, allowReuse: false }, true);
}

function intake(
  body: unknown,
  options: IntakeOptions,
  demographicSearch: boolean,
): Intake<StoredCheckRequest> {
  const sentId = sentPayerId(body);
  const payer = sentId ? options.payers?.resolvePayer(sentId) : undefined;
  const repaired = repairCheckRequest(body, {
    keepMemberIdSeparators: payer?.keepMemberIdSeparators === true,
    ...(payer?.memberIdFormat ? { memberIdFormat: payer.memberIdFormat } : {}),
  });
  const problems = validateCheckRequest(repaired.body, options.now, { demographicSearch });
  if (payer) {
    problems.push(
      ...memberIdProblems(payer, repaired.body, problems),
      ...payerProblems(payer, demographicSearch),
    );
  }
  if (problems.length) return { ok: false, problems };
  const { reuseWithinHours, ...sent } = repaired.body as StoredCheckRequest;
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
    connection: payer?.connections?.[0]?.name ?? '',
    charges: settleCharges(charges),
  };
}

/** The request without `encounter.charges` (and without an encounter that held nothing else). */
function setChargesApart<R extends Pick<EligibilityCheckRequest, 'encounter'>>(request: R) {
  const { encounter, ...rest } = request;
  if (!encounter?.charges) return { charges: [], asked: request };
  const { charges, ...kept } = encounter;
  return { charges, asked: Object.keys(kept).length ? { ...rest, encounter: kept } : rest };
}
