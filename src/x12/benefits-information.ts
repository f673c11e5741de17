/**
 * One 2110 loop (an EB with its HSD, MSG, III, DTP, REF and 2120 LS/LE related entities) as the Change
 * Healthcare/Stedi `benefitsInformation` object. Values are strings as sent (trimmed); code elements are
 * upper-cased and named from codes.ts. Only elements that are present become properties.
 */
import type { BenefitsInformation } from '../contract/check-response.ts';
import { readAddress } from './address.ts';
import {
  codeName,
  EB01_BENEFIT_CODES,
  EB02_COVERAGE_LEVELS,
  EB04_INSURANCE_TYPES,
  EB09_QUANTITY_QUALIFIERS,
  EB12_NETWORK_INDICATORS,
  ENTITY_IDENTIFIER_CODES,
  HSD01_QUANTITY_QUALIFIERS,
  HSD03_UNITS,
  HSD07_DELIVERY_FREQUENCIES,
  HSD08_DELIVERY_TIMES,
  isKnownServiceTypeCode,
  PER_COMMUNICATION_MODES,
  PROCEDURE_QUALIFIERS,
  REF_KEYS,
  SERVICE_TYPE_CODES,
  TIME_PERIOD_QUALIFIERS,
} from './codes.ts';
import { dateKey } from './dates.ts';
import { type IssueLog, warning } from './issues.ts';
import type { X12Loop } from './loops.ts';
import { amountsIncomplete, isAuthorizationIndicator, type SuspectBenefitRows } from './snip.ts';
import type { X12Tokens } from './tokenizer.ts';

type Related = NonNullable<BenefitsInformation['benefitsRelatedEntities']>[number];
type Info = Record<string, unknown>;

function set(o: Info, key: string, value: string | undefined): void {
  if (value) o[key] = value;
}

/** Appends to the array property `key`, creating it on first use. */
function append(target: object, key: string, value: unknown): void {
  const o = target as Info;
  const list = o[key] as unknown[] | undefined;
  if (list) list.push(value);
  else o[key] = [value];
}

/** Sets `o[key][name]`, creating the record on first use. */
function record(target: object, key: string, name: string, value: string): void {
  const o = target as Info;
  const map = (o[key] as Info | undefined) ?? {};
  map[name] = value;
  o[key] = map;
}

/** Code tables as Maps: one hash lookup per code, and no prototype keys to guard against. */
const EB01 = asMap(EB01_BENEFIT_CODES);
const EB02 = asMap(EB02_COVERAGE_LEVELS);
const EB04 = asMap(EB04_INSURANCE_TYPES);
const TIME = asMap(TIME_PERIOD_QUALIFIERS);
const EB09 = asMap(EB09_QUANTITY_QUALIFIERS);
const EB12 = asMap(EB12_NETWORK_INDICATORS);

const STC = asMap(SERVICE_TYPE_CODES);

function asMap(table: Readonly<Record<string, string>>): ReadonlyMap<string, string> {
  return new Map(Object.entries(table));
}

function allServiceTypes(t: X12Tokens, i: number, n: number): boolean {
  const codes = t.repetitions(i, n);
  return codes.length > 0 && codes.every((c) => isKnownServiceTypeCode(c.trim().toUpperCase()));
}

/**
 * How EB01–EB13 sit in the segment. Two shapes of a one-place shift are recognised, each only when the
 * elements cannot be read any other way: EB02 missing (a service type code in EB02, no coverage level
 * anywhere; -1) and an extra empty element (coverage level in EB03, service types in EB04; +1).
 */
function ebShift(t: X12Tokens, i: number, log: IssueLog): number {
  const eb02 = t.code(i, 2);
  let shift = 0;
  if (eb02 && !EB02.has(eb02) && isKnownServiceTypeCode(eb02) && !allServiceTypes(t, i, 3)) shift = -1;
  // Coverage levels are 3 characters: a longer EB03 (the usual list of service types) is not read as a code.
  else if (!eb02 && !t.codeIsLongerThan(i, 3, 3) && EB02.has(t.code(i, 3)) && allServiceTypes(t, i, 4))
    shift = 1;
  if (shift !== 0)
    log.add(
      warning(
        'X12_EB_SHIFTED',
        shift < 0 ? 'EB02 was missing.' : 'An extra element preceded EB03.',
        t.position(i),
        'EB',
      ),
    );
  return shift;
}

/** The element that holds EB`n` (1–13) given `shift`; 0 when it was not sent. */
function ebIndex(shift: number, n: number): number {
  if (shift === 0 || n === 1) return n;
  // Shift -1: EB02..EB13 were sent one place early. Shift +1: EB02..EB13 were sent one place late.
  if (shift < 0) return n === 2 ? 0 : n - 1;
  return n + 1;
}

/** EB`n` as sent (trimmed). */
function ebValue(t: X12Tokens, i: number, shift: number, n: number): string {
  const at = ebIndex(shift, n);
  return at === 0 ? '' : t.value(i, at);
}

/** EB`n` as a code (trimmed, upper-cased). */
function ebCode(t: X12Tokens, i: number, shift: number, n: number): string {
  const at = ebIndex(shift, n);
  return at === 0 ? '' : t.code(i, at);
}

/**
 * Reads one 2110 loop. `suspects`, when given, collects the row if it may break a structural rule (a code
 * without a name, no EB01, an unknown EB11 or EB13 qualifier, incomplete amounts): snip.ts checks those.
 */
export function readBenefit(
  t: X12Tokens,
  benefit: X12Loop,
  log: IssueLog,
  suspects?: SuspectBenefitRows,
): BenefitsInformation {
  const i = benefit.segments[0]!;
  const shift = ebShift(t, i, log);
  // Properties are set with constant names, so the objects share a few shapes (fast to build and read).
  // Unknown codes have no name: the name property is left out, and the row is flagged for snip.ts.
  const info: BenefitsInformation = {};
  let unnamed = false;
  const code = ebCode(t, i, shift, 1);
  if (code) {
    info.code = code;
    const name = EB01.get(code);
    if (name !== undefined) info.name = name;
    else unnamed = true;
  } else unnamed = true;
  const level = ebCode(t, i, shift, 2);
  if (level) {
    info.coverageLevelCode = level;
    const name = EB02.get(level);
    if (name !== undefined) info.coverageLevel = name;
    else unnamed = true;
  }
  const stcAt = ebIndex(shift, 3);
  if (stcAt !== 0 && readServiceTypes(info, t.repetitionCodes(i, stcAt))) unnamed = true;
  const insurance = ebCode(t, i, shift, 4);
  if (insurance) {
    info.insuranceTypeCode = insurance;
    const name = EB04.get(insurance);
    if (name !== undefined) info.insuranceType = name;
    else unnamed = true;
  }
  const plan = ebValue(t, i, shift, 5);
  if (plan) info.planCoverage = plan;
  const time = ebCode(t, i, shift, 6);
  if (time) {
    info.timeQualifierCode = time;
    const name = TIME.get(time);
    if (name !== undefined) info.timeQualifier = name;
    else unnamed = true;
  }
  const amount = ebValue(t, i, shift, 7);
  if (amount) info.benefitAmount = amount;
  const percent = ebValue(t, i, shift, 8);
  if (percent) info.benefitPercent = percent;
  const quantity = ebCode(t, i, shift, 9);
  if (quantity) {
    info.quantityQualifierCode = quantity;
    const name = EB09.get(quantity);
    if (name !== undefined) info.quantityQualifier = name;
    else unnamed = true;
  }
  const count = ebValue(t, i, shift, 10);
  if (count) info.benefitQuantity = count;
  const auth = ebCode(t, i, shift, 11);
  if (auth) {
    info.authOrCertIndicator = auth;
    if (!isAuthorizationIndicator(auth)) unnamed = true;
  }
  const network = ebCode(t, i, shift, 12);
  if (network) {
    info.inPlanNetworkIndicatorCode = network;
    const name = EB12.get(network);
    if (name !== undefined) info.inPlanNetworkIndicator = name;
    else unnamed = true;
  }
  const composite = ebValue(t, i, shift, 13);
  if (composite) {
    const identifier = procedure(composite.split(t.delimitersAt(i).component));
    info.compositeMedicalProcedureIdentifier = identifier;
    if (identifier.productOrServiceIdQualifier === undefined) unnamed = true;
  }
  if (
    suspects !== undefined &&
    (unnamed || amountsIncomplete(code, amount !== '', percent !== '', quantity !== '', count !== ''))
  )
    suspects.add(i, info);

  const segments = benefit.segments;
  for (let k = 1; k < segments.length; k++) readChild(t, segments[k]!, info);
  for (const child of benefit.children) {
    const entity = readRelated(t, child);
    if (entity) append(info, 'benefitsRelatedEntities', entity);
  }
  return info;
}

/**
 * EB03 repetitions (as codes), without blanks and duplicates, with their names. `codes` is a fresh array
 * (repetitionCodes makes one per call): it is compacted in place and becomes `serviceTypeCodes`. True when
 * a code is named by itself (not in the code list: snip.ts reports it).
 */
function readServiceTypes(info: BenefitsInformation, codes: string[]): boolean {
  const names: string[] = [];
  let kept = 0;
  let unnamed = false;
  for (let k = 0; k < codes.length; k++) {
    const stc = codes[k]!;
    if (!stc || isAmong(codes, kept, stc)) continue;
    codes[kept++] = stc;
    const name = STC.get(stc) ?? stc;
    if (name === stc) unnamed = true;
    names.push(name);
  }
  if (kept === 0) return false;
  // Setting an array's length is a slow runtime call: only when something was dropped.
  if (kept !== codes.length) codes.length = kept;
  info.serviceTypeCodes = codes;
  info.serviceTypes = names;
  return unnamed;
}

/** `value` is one of list[0, end). */
function isAmong(list: string[], end: number, value: string): boolean {
  for (let k = 0; k < end; k++) if (list[k] === value) return true;
  return false;
}

function procedure(parts: string[]): NonNullable<BenefitsInformation['compositeMedicalProcedureIdentifier']> {
  const [qualifier = '', procedureCode = '', ...rest] = parts.map((p) => p.trim());
  const out: Info = {};
  set(out, 'productOrServiceIdQualifierCode', qualifier.toUpperCase());
  set(out, 'productOrServiceIdQualifier', codeName(PROCEDURE_QUALIFIERS, qualifier.toUpperCase()));
  set(out, 'procedureCode', procedureCode);
  // EB13-3..6 are modifiers; EB13-7 (description) and EB13-8 (product id) are not modifiers.
  const modifiers = rest.slice(0, 4).filter(Boolean);
  if (modifiers.length) out.procedureModifiers = modifiers;
  return out;
}

const HSD01 = asMap(HSD01_QUANTITY_QUALIFIERS);
const HSD03 = asMap(HSD03_UNITS);
const HSD07 = asMap(HSD07_DELIVERY_FREQUENCIES);
const HSD08 = asMap(HSD08_DELIVERY_TIMES);
/** NM101 entity identifier names (also read by the 2100 loops in eligibility.ts). */
export const ENTITIES = asMap(ENTITY_IDENTIFIER_CODES);
const PER_MODES = asMap(PER_COMMUNICATION_MODES);

type Delivery = NonNullable<BenefitsInformation['benefitsServiceDelivery']>[number];

// Properties are assigned by name (not through a keyed helper), in the order the objects always had.
function readChild(t: X12Tokens, i: number, info: BenefitsInformation): void {
  switch (t.segmentId(i)) {
    case 'HSD': {
      const hsd: Delivery = {};
      const q = t.upperValue(i, 1);
      if (q) hsd.quantityQualifierCode = q;
      const qName = HSD01.get(q);
      if (qName) hsd.quantityQualifier = qName;
      const quantity = t.value(i, 2);
      if (quantity) hsd.quantity = quantity;
      const unit = t.upperValue(i, 3);
      if (unit) hsd.unitForMeasurementCode = unit;
      const unitName = HSD03.get(unit);
      if (unitName) hsd.unitForMeasurement = unitName;
      const modulus = t.value(i, 4);
      if (modulus) hsd.sampleSelectionModulus = modulus;
      const period = t.upperValue(i, 5);
      if (period) hsd.timePeriodQualifierCode = period;
      const periodName = TIME.get(period);
      if (periodName) hsd.timePeriodQualifier = periodName;
      const periods = t.value(i, 6);
      if (periods) hsd.numOfPeriods = periods;
      const frequency = t.upperValue(i, 7);
      if (frequency) hsd.deliveryFrequencyCode = frequency;
      const frequencyName = HSD07.get(frequency);
      if (frequencyName) hsd.deliveryFrequency = frequencyName;
      const pattern = t.upperValue(i, 8);
      if (pattern) hsd.deliveryPatternTimeCode = pattern;
      const patternName = HSD08.get(pattern);
      if (patternName) hsd.deliveryPatternTime = patternName;
      append(info, 'benefitsServiceDelivery', hsd);
      return;
    }
    case 'MSG': {
      const text = t.value(i, 1);
      if (text) append(info, 'additionalInformation', { description: text });
      return;
    }
    case 'III': {
      const code = t.value(i, 2);
      const description = t.value(i, 4);
      if (!code && !description) return;
      const entry: { code?: string; description?: string } = {};
      if (code) entry.code = code;
      if (description) entry.description = description;
      append(info, 'additionalInformation', entry);
      return;
    }
    case 'DTP': {
      const value = t.value(i, 3);
      if (value) record(info, 'benefitsDateInformation', dateKey(t.value(i, 1)), value);
      return;
    }
    case 'REF': {
      const value = t.value(i, 2) || t.value(i, 3);
      const qualifier = t.upperValue(i, 1);
      if (value)
        record(info, 'benefitsAdditionalInformation', REF_KEYS[qualifier] ?? `ref${qualifier}`, value);
      return;
    }
    default:
    // AAA is read by the caller (rejections); nothing else reaches a 2110 loop.
  }
}

function readRelated(t: X12Tokens, related: X12Loop): Related | undefined {
  const entity: Related = {};
  let filled = false;
  for (const i of related.segments) {
    switch (t.segmentId(i)) {
      case 'NM1': {
        const code = t.upperValue(i, 1);
        const name = ENTITIES.get(code);
        const type = entityType(t.value(i, 2));
        const last = t.value(i, 3);
        const first = t.value(i, 4);
        const middle = t.value(i, 5);
        const idCode = t.upperValue(i, 8);
        const idValue = t.value(i, 9);
        if (code) entity.entityIdentifierCode = code;
        if (name) entity.entityIdentifier = name;
        if (type) entity.entityType = type;
        if (last) entity.entityName = last;
        if (first) entity.entityFirstname = first;
        if (middle) entity.entityMiddlename = middle;
        if (idCode) entity.entityIdentificationCode = idCode;
        if (idValue) entity.entityIdentificationValue = idValue;
        if (code || type || last || first || middle || idCode || idValue) filled = true;
        break;
      }
      case 'PER': {
        const name = t.value(i, 2);
        for (let n = 3; n <= 7; n += 2) {
          const mode = t.upperValue(i, n);
          const number = t.value(i, n + 1);
          if (!mode && !number) continue;
          const contact: { name?: string; communicationMode?: string; communicationNumber?: string } = {};
          if (name) contact.name = name;
          const modeName = PER_MODES.get(mode) ?? mode;
          if (modeName) contact.communicationMode = modeName;
          if (number) contact.communicationNumber = number;
          append(entity, 'contactInformation', contact);
          filled = true;
        }
        break;
      }
      default:
    }
  }
  // A related entity's N4 has no country subdivision in its JSON.
  const address = readAddress(t, related, { subdivision: false });
  if (address) {
    entity.address = address;
    filled = true;
  }
  return filled ? entity : undefined;
}

export function entityType(code: string): string | undefined {
  return code === '1' ? 'Person' : code === '2' ? 'Non-Person Entity' : undefined;
}
