/**
 * The submit request: its TypeBox schema (contract/check-request.ts), plus the semantic rules JSON
 * Schema cannot say (NPI check digit, real dates, known service type codes). Problems are reported per
 * field, all at once, and never echo the submitted values (they may be PHI).
 */
import { Compile } from 'typebox/compile';
import { EligibilityCheckRequest } from '../contract/check-request.ts';
import { isKnownServiceTypeCode } from '../x12/codes.ts';

/** Names: letters (any script), digits, space and . , ' & / ( ) # -. X12 delimiters are refused. */
const NAME = /^[\p{L}\p{M}0-9 .,'&/()#-]+$/u;

const compiled = Compile(EligibilityCheckRequest);

export interface FieldProblem {
  field: string;
  problem: string;
}

export function validateCheckRequest(body: unknown, today = new Date()): FieldProblem[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return [{ field: 'body', problem: 'must be a JSON object' }];
  }
  const problems: FieldProblem[] = [];
  // Check() is the fast path; Errors() (slow: it explains every failure) runs only for invalid bodies.
  const schemaErrors = compiled.Check(body) ? [] : compiled.Errors(body);
  for (const e of schemaErrors) {
    const params = e.params as { additionalProperties?: string[]; requiredProperties?: string[] };
    const base = pointerToField(e.instancePath);
    if (e.keyword === 'required' && params.requiredProperties) {
      for (const p of params.requiredProperties)
        problems.push({ field: join(base, p), problem: 'is required' });
    } else if (e.keyword === 'additionalProperties' && params.additionalProperties) {
      for (const p of params.additionalProperties)
        problems.push({ field: join(base, fieldName(p)), problem: 'is not a known field' });
    } else if (e.keyword === 'boolean' && e.schemaPath.endsWith('/additionalProperties')) {
      problems.push({ field: base, problem: 'is not a known field' });
    } else {
      problems.push({ field: base || 'body', problem: describe(e.keyword, e.message) });
    }
  }
  // Semantic rules run on every field that has the right shape, so one answer names every bad field.
  // Each part is read loosely here: it may have failed the schema (wrong types are guarded below).
  const req = body as Loose;
  const p = isObject(req.provider) ? (req.provider as Loose) : undefined;
  const sub = isObject(req.subscriber) ? (req.subscriber as Loose) : undefined;
  if (typeof p?.npi === 'string' && /^[0-9]{10}$/.test(p.npi) && !isValidNpi(p.npi)) {
    problems.push({ field: 'provider.npi', problem: 'has an invalid check digit' });
  }
  if (p && !p.organizationName && !(p.firstName && p.lastName)) {
    problems.push({ field: 'provider', problem: 'needs organizationName, or firstName and lastName' });
  }
  for (const [field, value] of [
    ['provider.organizationName', p?.organizationName],
    ['provider.firstName', p?.firstName],
    ['provider.lastName', p?.lastName],
    ['subscriber.firstName', sub?.firstName],
    ['subscriber.lastName', sub?.lastName],
    ['subscriber.middleName', sub?.middleName],
  ] as const) {
    if (typeof value === 'string' && value && (!NAME.test(value) || !value.trim())) {
      problems.push({ field, problem: "may contain only letters, digits, spaces and . , ' & / ( ) # -" });
    }
  }
  if (typeof sub?.dateOfBirth === 'string' && /^[0-9]{8}$/.test(sub.dateOfBirth)) {
    const dob = parseDate8(sub.dateOfBirth);
    if (!dob) problems.push({ field: 'subscriber.dateOfBirth', problem: 'is not a real date (YYYYMMDD)' });
    else if (dob > today) problems.push({ field: 'subscriber.dateOfBirth', problem: 'is in the future' });
    else if (dob.getUTCFullYear() < 1900)
      problems.push({ field: 'subscriber.dateOfBirth', problem: 'is before 1900' });
  }
  const enc = isObject(req.encounter) ? (req.encounter as Loose) : undefined;
  const dos = enc?.dateOfService;
  if (typeof dos === 'string' && /^[0-9]{8}$/.test(dos)) {
    const date = parseDate8(dos);
    if (!date) problems.push({ field: 'encounter.dateOfService', problem: 'is not a real date (YYYYMMDD)' });
    else if (date.getUTCFullYear() < 1900 || date.getUTCFullYear() > 2099)
      problems.push({ field: 'encounter.dateOfService', problem: 'must be from 19000101 to 20991231' });
  }
  if (Array.isArray(enc?.serviceTypeCodes)) {
    enc.serviceTypeCodes.forEach((code, i) => {
      if (typeof code === 'string' && /^[A-Z0-9]{1,2}$/.test(code) && !isKnownServiceTypeCode(code)) {
        problems.push({
          field: `encounter.serviceTypeCodes[${i}]`,
          problem: 'is not a known X12 service type code',
        });
      }
    });
  }
  return bounded(dedupe(problems));
}

type Loose = Record<string, unknown>;

function isObject(v: unknown): v is Loose {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function formatProblems(problems: FieldProblem[]): string {
  return `Invalid request: ${problems.map((p) => `${p.field} ${p.problem}`).join('; ')}.`;
}

/** NPI check digit: Luhn over the prefix 80840 + the first nine digits. */
export function isValidNpi(npi: string): boolean {
  if (!/^[0-9]{10}$/.test(npi)) return false;
  const digits = `80840${npi.slice(0, 9)}`;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10 === npi.charCodeAt(9) - 48;
}

export function parseDate8(text: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(text);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d
    ? date
    : undefined;
}

function pointerToField(pointer: string): string {
  return pointer
    .split('/')
    .filter(Boolean)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? fieldName(part) : `.${fieldName(part)}`))
    .join('');
}

/**
 * A field name as it may be echoed: names are the client's text, so only short identifier-like ones are
 * repeated back (a 10 KB key or one carrying a member id is not).
 */
function fieldName(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]{0,39}$/.test(name) ? name : '(unnamed)';
}

/** At most this many problems are named per field (array items count as one field), and in all. */
export const PROBLEMS_PER_FIELD = 3;
export const PROBLEMS_IN_ALL = 20;

/** Keeps an answer's size independent of the input's: 10,000 bad codes are three problems and a count. */
function bounded(problems: FieldProblem[]): FieldProblem[] {
  const perField = new Map<string, number>();
  const kept: FieldProblem[] = [];
  for (const p of problems) {
    const family = p.field.replace(/\[\d+\]/g, '[]');
    const n = (perField.get(family) ?? 0) + 1;
    perField.set(family, n);
    if (n <= PROBLEMS_PER_FIELD && kept.length < PROBLEMS_IN_ALL) kept.push(p);
  }
  const left = problems.length - kept.length;
  if (left > 0) kept.push({ field: 'body', problem: `has ${left} more problem${left === 1 ? '' : 's'}` });
  return kept;
}

function join(base: string, prop: string): string {
  return base ? `${base}.${prop}` : prop;
}

function describe(keyword: string, message: string): string {
  switch (keyword) {
    case 'type':
      return message.replace(/^must be/, 'must be a');
    case 'pattern':
      return 'has an invalid format';
    default:
      return message;
  }
}

function dedupe(problems: FieldProblem[]): FieldProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = p.field;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
