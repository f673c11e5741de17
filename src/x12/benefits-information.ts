/**
 * One 2110 loop (an EB with its HSD, MSG, III, DTP, REF and 2120 LS/LE related entities) as the Change
 * Healthcare/Stedi `benefitsInformation` object. Values are strings as sent (trimmed); code elements are
 * upper-cased and named from codes.ts. Only elements that are present become properties.
 */
import type { BenefitsInformation } from '../checks/schema.ts';
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
import type { X12Tokens } from './tokenizer.ts';

type Related = NonNullable<BenefitsInformation['benefitsRelatedEntities']>[number];
type Info = Record<string, unknown>;

function set(o: Info, key: string, value: string | undefined): void {
  if (value) o[key] = value;
}

/** Appends to the array property `key`, creating it on first use. */
function append(o: Info, key: string, value: unknown): void {
  const list = o[key] as unknown[] | undefined;
  if (list) list.push(value);
  else o[key] = [value];
}

/** Sets `o[key][name]`, creating the record on first use. */
function record(o: Info, key: string, name: string, value: string): void {
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
  else if (!eb02 && EB02.has(t.code(i, 3)) && allServiceTypes(t, i, 4)) shift = 1;
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

export function readBenefit(t: X12Tokens, benefit: X12Loop, log: IssueLog): BenefitsInformation {
  const i = benefit.segments[0]!;
  const shift = ebShift(t, i, log);
  // Properties are set with constant names, so the objects share a few shapes (fast to build and read).
  // Unknown codes have no name: the name property is left out.
  const info: BenefitsInformation = {};
  const code = ebCode(t, i, shift, 1);
  if (code) {
    info.code = code;
    const name = EB01.get(code);
    if (name !== undefined) info.name = name;
  }
  const level = ebCode(t, i, shift, 2);
  if (level) {
    info.coverageLevelCode = level;
    const name = EB02.get(level);
    if (name !== undefined) info.coverageLevel = name;
  }
  const stcAt = ebIndex(shift, 3);
  if (stcAt !== 0) readServiceTypes(info, t.repetitionCodes(i, stcAt));
  const insurance = ebCode(t, i, shift, 4);
  if (insurance) {
    info.insuranceTypeCode = insurance;
    const name = EB04.get(insurance);
    if (name !== undefined) info.insuranceType = name;
  }
  const plan = ebValue(t, i, shift, 5);
  if (plan) info.planCoverage = plan;
  const time = ebCode(t, i, shift, 6);
  if (time) {
    info.timeQualifierCode = time;
    const name = TIME.get(time);
    if (name !== undefined) info.timeQualifier = name;
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
  }
  const count = ebValue(t, i, shift, 10);
  if (count) info.benefitQuantity = count;
  const auth = ebCode(t, i, shift, 11);
  if (auth) info.authOrCertIndicator = auth;
  const network = ebCode(t, i, shift, 12);
  if (network) {
    info.inPlanNetworkIndicatorCode = network;
    const name = EB12.get(network);
    if (name !== undefined) info.inPlanNetworkIndicator = name;
  }
  const composite = ebValue(t, i, shift, 13);
  if (composite)
    info.compositeMedicalProcedureIdentifier = procedure(composite.split(t.delimitersAt(i).component));

  const o = info as Info;
  for (let k = 1; k < benefit.segments.length; k++) readChild(t, benefit.segments[k]!, o);
  for (const child of benefit.children) {
    const entity = readRelated(t, child);
    if (entity) append(o, 'benefitsRelatedEntities', entity);
  }
  return info;
}

/** EB03 repetitions (as codes), without blanks and duplicates, with their names. */
function readServiceTypes(info: BenefitsInformation, codes: string[]): void {
  const stcs: string[] = [];
  const names: string[] = [];
  for (const stc of codes) {
    if (!stc || stcs.includes(stc)) continue;
    stcs.push(stc);
    names.push(STC.get(stc) ?? stc);
  }
  if (stcs.length) {
    info.serviceTypeCodes = stcs;
    info.serviceTypes = names;
  }
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

function readChild(t: X12Tokens, i: number, info: Info): void {
  switch (t.segmentId(i)) {
    case 'HSD': {
      const hsd: Info = {};
      const q = t.value(i, 1).toUpperCase();
      set(hsd, 'quantityQualifierCode', q);
      set(hsd, 'quantityQualifier', codeName(HSD01_QUANTITY_QUALIFIERS, q));
      set(hsd, 'quantity', t.value(i, 2));
      const unit = t.value(i, 3).toUpperCase();
      set(hsd, 'unitForMeasurementCode', unit);
      set(hsd, 'unitForMeasurement', codeName(HSD03_UNITS, unit));
      set(hsd, 'sampleSelectionModulus', t.value(i, 4));
      const period = t.value(i, 5).toUpperCase();
      set(hsd, 'timePeriodQualifierCode', period);
      set(hsd, 'timePeriodQualifier', codeName(TIME_PERIOD_QUALIFIERS, period));
      set(hsd, 'numOfPeriods', t.value(i, 6));
      const frequency = t.value(i, 7).toUpperCase();
      set(hsd, 'deliveryFrequencyCode', frequency);
      set(hsd, 'deliveryFrequency', codeName(HSD07_DELIVERY_FREQUENCIES, frequency));
      const pattern = t.value(i, 8).toUpperCase();
      set(hsd, 'deliveryPatternTimeCode', pattern);
      set(hsd, 'deliveryPatternTime', codeName(HSD08_DELIVERY_TIMES, pattern));
      append(info, 'benefitsServiceDelivery', hsd);
      return;
    }
    case 'MSG': {
      const text = t.value(i, 1);
      if (text) append(info, 'additionalInformation', { description: text });
      return;
    }
    case 'III': {
      const entry: Info = {};
      set(entry, 'code', t.value(i, 2));
      set(entry, 'description', t.value(i, 4));
      if (Object.keys(entry).length) append(info, 'additionalInformation', entry);
      return;
    }
    case 'DTP': {
      const value = t.value(i, 3);
      if (value) record(info, 'benefitsDateInformation', dateKey(t.value(i, 1)), value);
      return;
    }
    case 'REF': {
      const value = t.value(i, 2) || t.value(i, 3);
      const qualifier = t.value(i, 1).toUpperCase();
      if (value)
        record(info, 'benefitsAdditionalInformation', REF_KEYS[qualifier] ?? `ref${qualifier}`, value);
      return;
    }
    default:
    // AAA is read by the caller (rejections); nothing else reaches a 2110 loop.
  }
}

function readRelated(t: X12Tokens, related: X12Loop): Related | undefined {
  const entity: Info = {};
  let address: Info | undefined;
  for (const i of related.segments) {
    switch (t.segmentId(i)) {
      case 'NM1': {
        const code = t.value(i, 1).toUpperCase();
        set(entity, 'entityIdentifierCode', code);
        set(entity, 'entityIdentifier', codeName(ENTITY_IDENTIFIER_CODES, code));
        set(entity, 'entityType', entityType(t.value(i, 2)));
        set(entity, 'entityName', t.value(i, 3));
        set(entity, 'entityFirstname', t.value(i, 4));
        set(entity, 'entityMiddlename', t.value(i, 5));
        set(entity, 'entityIdentificationCode', t.value(i, 8).toUpperCase());
        set(entity, 'entityIdentificationValue', t.value(i, 9));
        break;
      }
      case 'N3':
        address = address ?? {};
        set(address, 'address1', t.value(i, 1));
        set(address, 'address2', t.value(i, 2));
        break;
      case 'N4':
        address = address ?? {};
        set(address, 'city', t.value(i, 1));
        set(address, 'state', t.value(i, 2));
        set(address, 'postalCode', t.value(i, 3));
        set(address, 'countryCode', t.value(i, 4));
        break;
      case 'PER': {
        const contacts: Info[] = [];
        for (let n = 3; n <= 7; n += 2) {
          const mode = t.value(i, n).toUpperCase();
          const number = t.value(i, n + 1);
          if (!mode && !number) continue;
          const contact: Info = {};
          set(contact, 'name', t.value(i, 2));
          set(contact, 'communicationMode', codeName(PER_COMMUNICATION_MODES, mode) ?? mode);
          set(contact, 'communicationNumber', number);
          contacts.push(contact);
        }
        for (const contact of contacts) append(entity, 'contactInformation', contact);
        break;
      }
      default:
    }
  }
  if (address && Object.keys(address).length) entity.address = address;
  return Object.keys(entity).length ? (entity as Related) : undefined;
}

export function entityType(code: string): string | undefined {
  return code === '1' ? 'Person' : code === '2' ? 'Non-Person Entity' : undefined;
}
