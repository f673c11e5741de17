/**
 * Reads one `BenefitsInformation` object (an EB segment with its HSD and MSG, as the X12 parser produces
 * it: strings for amounts, an array for EB03) into a typed `BenefitRow`. Every later rule works on rows,
 * so the quirks of the wire format (string numbers, whole-number percents, missing qualifiers) are handled
 * here once. Rules: docs/benefit-rules.md.
 */
import type { BenefitsInformation } from '../contract/check-response.ts';
import { classifyNutrition, type NutritionKind } from './nutrition.ts';

/** An HSD under the EB. */
type Delivery = NonNullable<BenefitsInformation['benefitsServiceDelivery']>[number];

/** EB12: Y in network, N out of network, W applies either way, U or absent unknown. */
export type Network = 'in' | 'both' | 'unknown' | 'out';
/** EB02: IND and EMP are the patient's own amounts; FAM (and other multi-person tiers) the family's. */
export type CoverageLevel = 'individual' | 'family' | 'other';

export interface VisitCounts {
  limit?: number;
  remaining?: number;
  used?: number;
}

export interface BenefitRow {
  /** Position in benefitsInformation: document order, used to break ties and to name rows. */
  index: number;
  /** EB01. */
  code: string;
  level: CoverageLevel;
  /** EB02 was absent; read as individual. */
  levelMissing: boolean;
  /** EB03 repetitions, trimmed and upper-cased. */
  serviceTypeCodes: string[];
  /** No EB03 and no EB13 procedure, or EB03 includes 30: the row speaks for the plan as a whole. */
  planLevel: boolean;
  /** EB04 insurance type (`MA` Medicare Part A, `MB` Part B, …), upper-cased. */
  insuranceType: string | undefined;
  /** The benefit period of the row as sent (DTP 291 plan, else 292 benefit, under the EB): `YYYYMMDD[-YYYYMMDD]`. */
  period: string | undefined;
  /**
   * Why EB07 is not an amount for the benefit period or a visit, when it is not: per day (EB06 7), per
   * episode or admission (26, 36), lifetime (32, 33), or a day range (HSD in days). Such amounts never
   * become an outpatient entry's copay, deductible or out-of-pocket (see scope.ts).
   */
  timeScope: string | undefined;
  /** EB06. */
  time: string | undefined;
  /** EB07 in dollars. */
  amount: number | undefined;
  /** EB08 as a fraction 0–1. */
  percent: number | undefined;
  /** EB08 was sent as a whole percent (e.g. `20`) and divided by 100. */
  percentWasWhole: boolean;
  /** Visits from EB09 `VS`/`99` + EB10, or from an HSD `VS` after the EB. */
  visits: VisitCounts;
  /** EB11: Y true, N false, U or absent undefined. */
  auth: boolean | undefined;
  network: Network;
  /** EB12 as sent, for criteria text. */
  networkCode: string | undefined;
  /** Which nutrition product the row's MSG text (or EB13 procedure code) names, if any. */
  nutrition: NutritionKind | undefined;
  /** How `nutrition` was found, for criteria text. */
  nutritionSource: 'MSG text' | 'procedure code' | undefined;
  /** Set when the row's elements sat one place off and were realigned (see `realign`). */
  realigned: string | undefined;
}

const INDIVIDUAL_LEVELS = new Set(['IND', 'EMP']);
/** Multi-person tiers whose amounts are the family's (FAM, employee and spouse/children, spouse and children). */
const FAMILY_LEVELS = new Set(['FAM', 'ESP', 'ECH', 'SPC']);

const DAY_RANGE = 'day-range (HSD in days)';

/**
 * The time scope of a row (see BenefitRow.timeScope): EB06 per day, per episode/admission or lifetime, else
 * an HSD counting days (HSD03 DA).
 */
function readTimeScope(hsds: readonly Delivery[] | undefined, time: string | undefined): string | undefined {
  switch (time) {
    case '7':
      return 'per-day (EB06 7)';
    case '26':
      return 'per-episode (EB06 26)';
    case '36':
      return 'per-admission (EB06 36)';
    case '32':
      return 'lifetime (EB06 32)';
    case '33':
      return 'lifetime remaining (EB06 33)';
    default:
  }
  if (hsds === undefined) return undefined;
  for (const hsd of hsds) {
    const unit = hsd.unitForMeasurementCode;
    if (unit !== undefined && upper(unit) === 'DA' && upper(hsd.quantityQualifierCode) !== 'VS')
      return DAY_RANGE;
  }
  return undefined;
}

/** HSD05 periods that make HSD02 a limit for the benefit period (years, service/calendar year, contract). */
const HSD_PERIOD_LIMIT = new Set(['21', '22', '23', '25']);

function toNumber(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : undefined;
}

function upper(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (isPlainCode(value)) return value;
  const trimmed = value.trim();
  return trimmed ? trimmed.toUpperCase() : undefined;
}

/** Printable ASCII without lower-case letters: already what trim + toUpperCase would make (the usual case). */
function isPlainCode(value: string): boolean {
  for (let k = 0; k < value.length; k++) {
    const c = value.charCodeAt(k);
    if (c <= 32 || c > 126 || (c >= 97 && c <= 122)) return false;
  }
  return true;
}

function readNetwork(code: string | undefined): Network {
  if (code === 'Y') return 'in';
  if (code === 'N') return 'out';
  if (code === 'W') return 'both';
  return 'unknown';
}

function readLevel(code: string | undefined): CoverageLevel {
  if (code === undefined || INDIVIDUAL_LEVELS.has(code)) return 'individual';
  if (FAMILY_LEVELS.has(code)) return 'family';
  return 'other';
}

function readAuth(code: string | undefined): boolean | undefined {
  if (code === 'Y') return true;
  if (code === 'N') return false;
  return undefined;
}

const NO_VISITS: VisitCounts = Object.freeze({});

/**
 * EB09/EB10 visits on an EB*F (elsewhere `VS` + 1 is a per-visit unit, not a limit), then HSD `VS` segments
 * after any EB (an HSD with a per-day/week/month period is a frequency, not a limit for the benefit period).
 */
function readVisits(
  eb: BenefitsInformation,
  code: string,
  hsds: readonly Delivery[] | undefined,
): VisitCounts {
  const quantity = code === 'F' ? toNumber(eb.benefitQuantity) : undefined;
  // Most rows have neither: they share one empty (frozen) object.
  if (quantity === undefined && hsds === undefined) return NO_VISITS;
  const visits: VisitCounts = {};
  const qualifier = upper(eb.quantityQualifierCode);
  if (quantity !== undefined && qualifier === 'VS') {
    if (upper(eb.timeQualifierCode) === '29') visits.remaining = quantity;
    else visits.limit = quantity;
  } else if (quantity !== undefined && qualifier === '99') {
    visits.used = quantity;
  }
  for (const hsd of hsds ?? []) {
    if (upper(hsd.quantityQualifierCode) !== 'VS') continue;
    const n = toNumber(hsd.quantity);
    if (n === undefined) continue;
    const period = upper(hsd.timePeriodQualifierCode);
    if (period === '29') visits.remaining ??= n;
    else if (period === undefined || HSD_PERIOD_LIMIT.has(period)) visits.limit ??= n;
  }
  return visits;
}

const YNU = new Set(['Y', 'N', 'U']);
const isNumber = (v: string | undefined) =>
  v !== undefined && v.trim() !== '' && Number.isFinite(Number(v.trim()));
const absent = (v: string | undefined) => v === undefined || v.trim() === '';

/**
 * Real files (and hand-written templates) sometimes shift EB elements by one place. Two shapes are
 * recognised, narrowly, because they cannot be read any other way:
 *  - EB*A with EB08 empty and a fraction 0–1 in EB07: the percent, authorization and network sit one place
 *    left (EB07, EB10, EB11); read them as EB08, EB11, EB12.
 *  - EB*F with EB09 empty, a qualifier (letters) in EB10 and a number in EB11: quantity qualifier and
 *    quantity sit one place right; read them as EB09 and EB10 (the network indicator is then lost: unknown).
 * `code` is EB01 as readRow reads it. undefined when the row is not shifted (most rows: no copy is made).
 */
function realign(
  eb: BenefitsInformation,
  code: string | undefined,
): { eb: BenefitsInformation; realigned: string } | undefined {
  if (code === 'A' && absent(eb.benefitPercent) && isNumber(eb.benefitAmount)) {
    const fraction = Number(eb.benefitAmount!.trim());
    if (fraction < 0 || fraction > 1) return undefined;
    const fixed: BenefitsInformation = { ...eb, benefitPercent: eb.benefitAmount };
    delete fixed.benefitAmount;
    const auth = upper(eb.benefitQuantity);
    if (absent(eb.inPlanNetworkIndicatorCode) && auth !== undefined && YNU.has(auth)) {
      fixed.authOrCertIndicator = auth;
      fixed.inPlanNetworkIndicatorCode = eb.authOrCertIndicator;
      delete fixed.benefitQuantity;
    }
    return { eb: fixed, realigned: 'EB*A elements one place left (percent in EB07)' };
  }
  if (code !== 'F' || !absent(eb.quantityQualifierCode)) return undefined;
  const qualifier = upper(eb.benefitQuantity);
  if (qualifier !== undefined && /^[A-Z][A-Z0-9]$/.test(qualifier) && isNumber(eb.authOrCertIndicator)) {
    const fixed: BenefitsInformation = {
      ...eb,
      quantityQualifierCode: qualifier,
      benefitQuantity: eb.authOrCertIndicator,
    };
    delete fixed.authOrCertIndicator;
    return { eb: fixed, realigned: 'EB*F elements one place right (quantity qualifier in EB10)' };
  }
  return undefined;
}

/** Shared by rows without EB03: never modified. */
const NO_CODES: string[] = [];

/**
 * EB03 codes trimmed and upper-cased, blanks dropped. The sent array itself when it is already in that
 * form (as the parser makes it); rows never modify it.
 */
function readServiceTypeCodes(sent: string[] | undefined): string[] {
  if (sent === undefined || sent.length === 0) return NO_CODES;
  let k = 0;
  while (k < sent.length && sent[k] !== '' && isPlainCode(sent[k]!)) k++;
  if (k === sent.length) return sent;
  const codes = sent.slice(0, k);
  for (; k < sent.length; k++) {
    const code = upper(sent[k]);
    if (code !== undefined) codes.push(code);
  }
  return codes;
}

export function readRow(original: BenefitsInformation, index: number): BenefitRow {
  const originalCode = upper(original.code);
  const fix = realign(original, originalCode);
  const eb = fix?.eb ?? original;
  const levelCode = upper(eb.coverageLevelCode);
  const serviceTypeCodes = readServiceTypeCodes(eb.serviceTypeCodes);
  const rawPercent = toNumber(eb.benefitPercent);
  // X12 sends EB08 as a fraction (.2); a few payers send 20 for 20 %.
  const percentWasWhole = rawPercent !== undefined && rawPercent > 1 && rawPercent <= 100;
  const percent =
    rawPercent === undefined || rawPercent > 100 || rawPercent < 0
      ? undefined
      : percentWasWhole
        ? rawPercent / 100
        : rawPercent;
  const networkCode = upper(eb.inPlanNetworkIndicatorCode);
  let messages: string[] | undefined;
  for (const m of eb.additionalInformation ?? []) {
    if (!m.description) continue;
    if (messages === undefined) messages = [];
    messages.push(m.description);
  }
  const procedureCode = eb.compositeMedicalProcedureIdentifier?.procedureCode;
  // EB13 without EB03: the row applies to that procedure only, never to the plan (scope.ts).
  const procedureSpecific = procedureCode !== undefined && serviceTypeCodes.length === 0;
  const dates = eb.benefitsDateInformation;
  const time = upper(eb.timeQualifierCode);
  // Read once for both readers: a property read on these objects (of many shapes) is not cheap.
  const hsds = eb.benefitsServiceDelivery;
  const nutrition =
    messages !== undefined || procedureCode !== undefined
      ? classifyNutrition(messages ?? [], procedureCode)
      : undefined;
  // realign never changes EB01.
  const code = originalCode ?? '';
  return {
    index,
    code,
    level: readLevel(levelCode),
    levelMissing: levelCode === undefined,
    serviceTypeCodes,
    planLevel:
      ((serviceTypeCodes.length === 0 && !procedureSpecific) || serviceTypeCodes.includes('30')) &&
      nutrition === undefined,
    insuranceType: upper(eb.insuranceTypeCode),
    period: dates === undefined ? undefined : (dates.plan ?? dates.benefit),
    timeScope: readTimeScope(hsds, time),
    time,
    amount: toNumber(eb.benefitAmount),
    percent,
    percentWasWhole,
    visits: readVisits(eb, code, hsds),
    auth: readAuth(upper(eb.authOrCertIndicator)),
    network: readNetwork(networkCode),
    networkCode,
    nutrition: nutrition?.kind,
    nutritionSource: nutrition?.source,
    realigned: fix?.realigned,
  };
}

/** EB01 groups the interpreter uses; every other EB01 (D, E, J, K, L, R, U, W, X, …) is ignored. */
export const ACTIVE_CODES = new Set(['1', '2', '3', '4', '5']);
export const INACTIVE_CODES = new Set(['6', '7', '8']);
export const USABLE_CODES = new Set([...ACTIVE_CODES, 'A', 'B', 'C', 'F', 'G', 'I']);
