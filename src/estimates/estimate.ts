/**
 * What the patient pays for each charge, from a completed check's benefit entries (docs/estimates.md). Pure:
 * objects in, data out. Every figure is computed in integer cents and each step says how it was reached;
 * every missing input becomes an assumption that lowers the confidence, never a silent default.
 *
 * Charges are applied in their order: what one pays toward the deductible and the out-of-pocket maximum
 * is no longer remaining for the next.
 */
import type { BenefitEntry, ProviderNetwork } from '../contract/check-response.ts';
import type { Estimate, EstimateResult, EstimateStep, PricedCharge } from '../contract/estimate.ts';

/** What an estimate reads of a completed check. */
export interface EstimateInputs {
  benefits?: readonly BenefitEntry[];
  providerNetwork?: ProviderNetwork;
}

/** Each assumption multiplies the confidence by this. */
const ASSUMPTION_FACTOR = 0.75;

/** What earlier charges of the same request have used up, in cents. */
interface Spent {
  deductible: number;
  outOfPocket: number;
}

const cents = (dollars: number) => Math.round(dollars * 100);
const dollars = (c: number) => c / 100;
const money = (c: number) => `$${(c / 100).toFixed(2)}`;
const known = (n: number | null | undefined): n is number => typeof n === 'number' && Number.isFinite(n);

/** The smaller of the known remaining amounts (individual, family) in cents, and what each was. */
function remaining(individual: number | null | undefined, family: number | null | undefined) {
  const values = [individual, family].filter(known).map(cents);
  if (values.length === 0) return undefined;
  const parts = [
    known(individual) ? `individual ${money(cents(individual))}` : undefined,
    known(family) ? `family ${money(cents(family))}` : undefined,
  ].filter(Boolean);
  return { cents: Math.max(0, Math.min(...values)), of: parts.join(', ') };
}

export function estimateCharges(check: EstimateInputs, charges: readonly PricedCharge[]): EstimateResult {
  const spent: Spent = { deductible: 0, outOfPocket: 0 };
  const estimates = charges.map((charge) => estimateOne(check, charge, spent));
  let patient = 0;
  let plan = 0;
  let notComputed = 0;
  for (const e of estimates) {
    if (e.patientPays === null || e.planPays === null) notComputed++;
    else {
      patient += cents(e.patientPays);
      plan += cents(e.planPays);
    }
  }
  return {
    estimates,
    estimateTotal: { patientPays: dollars(patient), planPays: dollars(plan), notComputed },
  };
}

function base(
  charge: PricedCharge,
): Pick<Estimate, 'serviceType' | 'serviceTypeCode' | 'procedureCode' | 'amount' | 'amountSource'> {
  return {
    serviceType: charge.serviceType,
    serviceTypeCode: charge.serviceTypeCode,
    ...(charge.procedureCode ? { procedureCode: charge.procedureCode } : {}),
    amount: dollars(cents(charge.amount)),
    amountSource: charge.amountSource,
  };
}

function notComputed(charge: PricedCharge, reason: string): Estimate {
  return {
    ...base(charge),
    patientPays: null,
    planPays: null,
    steps: [],
    assumptions: [],
    confidence: 0,
    reason,
  };
}

const hasCostSharing = (e: BenefitEntry) =>
  known(e.copay) ||
  known(e.coinsurance) ||
  known(e.deductibleRemaining) ||
  known(e.familyDeductibleRemaining) ||
  known(e.outOfPocketRemaining) ||
  known(e.familyOutOfPocketRemaining);

/** The entry to price a charge with, or why there is none. */
function entryFor(check: EstimateInputs, charge: PricedCharge): BenefitEntry | string {
  const benefits = check.benefits ?? [];
  if (benefits.length === 0)
    return 'the check has no benefits (plan inactive, or nothing usable in the answer): nothing to estimate from';
  const entry = benefits.find((b) => b.serviceType === charge.serviceType);
  if (!entry) return `the check has no benefit entry for ${charge.serviceType}`;
  if (entry.coverageStatus === 'Not Found')
    return `the payer's answer says nothing about ${charge.serviceType} (Not Found)`;
  if (entry.coverageStatus !== 'Not Covered' && !hasCostSharing(entry))
    return `the payer gave no copay, coinsurance, deductible or out-of-pocket amounts for ${charge.serviceType}`;
  return entry;
}

function estimateOne(check: EstimateInputs, charge: PricedCharge, spent: Spent): Estimate {
  const entry = entryFor(check, charge);
  if (typeof entry === 'string') return notComputed(charge, entry);
  const amount = cents(charge.amount);
  const assumptions: string[] = [];
  const steps: EstimateStep[] = [];
  const step = (kind: EstimateStep['kind'], c: number, basis: string) =>
    steps.push({ kind, amount: dollars(c), basis });
  if (charge.amountSource === 'feeSchedule')
    assumptions.push(
      `allowed amount ${money(amount)} taken from the fee schedule for procedure ${charge.procedureCode}`,
    );
  if (entry.coverageStatus === 'Not Covered') {
    step(
      'notCovered',
      amount,
      `${charge.serviceType} is not covered by the plan: the patient pays all of ${money(amount)}`,
    );
    return finish(charge, entry, amount, amount, steps, assumptions);
  }
  networkAssumptions(check, entry, assumptions);
  const deductible = deductiblePart(entry, amount, spent, assumptions);
  if (deductible.paid > 0) step('deductible', deductible.paid, deductible.basis);
  const left = amount - deductible.paid;
  const share = sharePart(entry, left, assumptions);
  if (share) step(share.kind, share.paid, share.basis);
  let patient = deductible.paid + (share?.paid ?? 0);
  const cap = remaining(entry.outOfPocketRemaining, entry.familyOutOfPocketRemaining);
  if (!cap) assumptions.push('out-of-pocket remaining unknown: no cap applied');
  else {
    const capLeft = Math.max(0, cap.cents - spent.outOfPocket);
    if (patient > capLeft) {
      step(
        'outOfPocketCap',
        capLeft - patient,
        `capped at the out-of-pocket remaining ${money(capLeft)} (${cap.of}${spentNote(spent.outOfPocket)})`,
      );
      patient = capLeft;
    }
  }
  spent.deductible += deductible.paid;
  spent.outOfPocket += patient;
  return finish(charge, entry, amount, patient, steps, assumptions);
}

function finish(
  charge: PricedCharge,
  entry: BenefitEntry,
  amount: number,
  patient: number,
  steps: EstimateStep[],
  assumptions: string[],
): Estimate {
  const score = entry.confidence?.score ?? 1;
  const confidence = Math.round(score * ASSUMPTION_FACTOR ** assumptions.length * 100) / 100;
  return {
    ...base(charge),
    patientPays: dollars(patient),
    planPays: dollars(amount - patient),
    steps,
    assumptions,
    confidence,
  };
}

const spentNote = (c: number) => (c > 0 ? `, less ${money(c)} used by earlier charges` : '');

/** In-network amounts are used unless the check says the provider is out of network. */
function networkAssumptions(check: EstimateInputs, entry: BenefitEntry, assumptions: string[]) {
  const outOfNetwork = check.providerNetwork?.status === 'Out of Network';
  if (outOfNetwork && entry.inNetwork !== false)
    assumptions.push(
      'the provider is out of network but the check holds in-network amounts: they were used, and out-of-network cost sharing is usually higher',
    );
  else if (!outOfNetwork && entry.inNetwork === false)
    assumptions.push('the check holds out-of-network amounts only: they were used');
  else if (entry.inNetwork === null || entry.inNetwork === undefined)
    assumptions.push('network of the amounts not stated: used as given');
}

/** What goes toward the deductible, and why. */
function deductiblePart(entry: BenefitEntry, amount: number, spent: Spent, assumptions: string[]) {
  const none = { paid: 0, basis: '' };
  if (entry.deductibleApplies === false) return none;
  const left = remaining(entry.deductibleRemaining, entry.familyDeductibleRemaining);
  if (!left) {
    assumptions.push(
      entry.deductibleApplies === true
        ? 'deductible remaining unknown: assumed met'
        : 'whether the deductible applies, and what remains of it, unknown: assumed met',
    );
    return none;
  }
  const available = Math.max(0, left.cents - spent.deductible);
  if (entry.deductibleApplies !== true && available > 0)
    assumptions.push('whether the deductible applies is unknown: assumed it applies');
  const paid = Math.min(amount, available);
  return {
    paid,
    basis: `toward the deductible: ${money(paid)} of the ${money(available)} remaining (${left.of}${spentNote(spent.deductible)})`,
  };
}

/** The copay, else the coinsurance, of what is left after the deductible. */
function sharePart(entry: BenefitEntry, left: number, assumptions: string[]) {
  if (left <= 0) return undefined;
  if (known(entry.copay)) {
    const paid = Math.min(cents(entry.copay), left);
    const note =
      paid < cents(entry.copay) ? ` (the copay is ${money(cents(entry.copay))}; the rest costs less)` : '';
    return { kind: 'copay' as const, paid, basis: `copay ${money(paid)}${note}` };
  }
  if (known(entry.coinsurance)) {
    const rate = Math.min(1, Math.max(0, entry.coinsurance));
    const paid = Math.round(left * rate);
    return {
      kind: 'coinsurance' as const,
      paid,
      basis: `coinsurance ${percent(rate)} of ${money(left)} = ${money(paid)}`,
    };
  }
  assumptions.push('neither copay nor coinsurance known: assumed the plan pays the rest');
  return undefined;
}

const percent = (rate: number) => `${Math.round(rate * 10000) / 100}%`;
