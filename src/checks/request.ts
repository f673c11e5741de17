/**
 * The submit request: its TypeBox schema (contract/check-request.ts), plus the semantic rules JSON
 * Schema cannot say (NPI check digit, real dates, known service type codes). Problems are reported per
 * field, all at once, and never echo the submitted values (they may be PHI).
 */
import { Compile } from 'typebox/compile';
import { EligibilityCheckRequest } from '../contract/check-request.ts';
import { isKnownServiceTypeCode } from '../x12/codes.ts';
import { chargeProblems } from './charges.ts';

/** Names: letters (any script), digits, space and . , ' & / ( ) # -. X12 delimiters are refused. */
const NAME = /^[\p{L}\p{M}0-9 .,'&/()#-]+$/u;

const compiled = Compile(EligibilityCheckRequest);

export interface FieldProblem {
  field: string;
  problem: string;
  /** For a field the schema does not know: its name as sent (identifier-like names only), to quote it. */
  unknownName?: string;
}

/** What a field must look like, said with an example, for every field whose format can be got wrong. */
const EXPECTED: Readonly<Record<string, string>> = {
  tradingPartnerServiceId:
    'must be a payer id from the payer directory (letters, digits, . _ -), e.g. SANDBOX; GET /api/payers lists them',
  'provider.npi': 'must be the 10-digit NPI, e.g. 1234567893',
  'provider.providerType': 'must be provider or facility',
  'subscriber.memberId':
    'must be the member id on the card: letters and digits (dashes allowed), e.g. ABC123456789',
  'subscriber.dateOfBirth': 'must be a date written YYYYMMDD, e.g. 19800115',
  'subscriber.gender': 'must be M, F or U',
  'subscriber.suffix': 'must be a name suffix of up to 10 letters or digits, e.g. JR or III',
  'encounter.dateOfService': 'must be a date written YYYYMMDD, e.g. 20260301',
  'encounter.serviceTypeCodes':
    'must be a list of 1 to 10 X12 service type codes, e.g. ["30"] or ["PT", "98"]',
  reuseWithinHours:
    'must be a whole number of hours from 0 to 168 (0: never reuse an earlier check), e.g. 24',
  'encounter.charges[].serviceType':
    'must be a product service type, e.g. Mental Health or Occupational Therapy (docs/estimates.md)',
  'encounter.charges[].serviceTypeCode':
    'must be a service type code of the product: 98, PT, MH, AD, AF or 33',
  'encounter.charges[].amount': 'must be the allowed amount in dollars, from 0 to 1000000, e.g. 120.50',
  'encounter.charges[].procedureCode': 'must be a procedure code of 1 to 10 letters or digits, e.g. 97110',
  'encounter.serviceTypeCodes[]':
    'must be an X12 service type code: one or two capital letters or digits, e.g. 30 or PT',
};

function expectedOf(field: string, prefix = ''): string {
  const text = EXPECTED[field.replace(/\[\d+\]/g, '[]')];
  return text ? `${prefix}${text}` : '';
}

/** The fields each object of the request knows, for "did you mean" (read off the schema itself). */
function knownFields(object: string): string[] {
  const root = EligibilityCheckRequest as unknown as { properties: Record<string, { properties?: object }> };
  const schema = object ? root.properties[object] : root;
  return Object.keys((schema as { properties?: object } | undefined)?.properties ?? {});
}

function unknownField(parent: string, name: string): FieldProblem {
  const echoed = fieldName(name);
  const where = parent ? `of ${parent}` : 'of the request';
  const meant = echoed === '(unnamed)' ? undefined : closest(name, knownFields(parent));
  return {
    field: join(parent, echoed),
    problem: `is not a known field ${where}${meant ? ` (did you mean \`${meant}\`?)` : ''}`,
    ...(echoed === '(unnamed)' ? {} : { unknownName: echoed }),
  };
}

/** The known name a typo most likely meant: the same letters in another case, or at most two edits away. */
function closest(name: string, known: string[]): string | undefined {
  const lower = name.toLowerCase();
  const same = known.find((k) => k.toLowerCase() === lower);
  if (same) return same;
  let best: { name: string; distance: number } | undefined;
  for (const k of known) {
    const distance = editDistance(lower, k.toLowerCase());
    if (distance <= 2 && (!best || distance < best.distance)) best = { name: k, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        previous[j]! + 1,
        row[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * `demographicSearch`: an insurance discovery's inquiry, the one request that may (and must) leave the
 * member id out (src/checks/intake.ts).
 */
export function validateCheckRequest(
  body: unknown,
  today = new Date(),
  options: { demographicSearch?: boolean } = {},
): FieldProblem[] {
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
        problems.push({ field: join(base, p), problem: `is required${expectedOf(join(base, p), ': ')}` });
    } else if (e.keyword === 'additionalProperties' && params.additionalProperties) {
      for (const p of params.additionalProperties) problems.push(unknownField(base, p));
    } else if (e.keyword === 'boolean' && e.schemaPath.endsWith('/additionalProperties')) {
      const at = e.instancePath.lastIndexOf('/');
      problems.push(unknownField(pointerToField(e.instancePath.slice(0, at)), e.instancePath.slice(at + 1)));
    } else {
      problems.push({ field: base || 'body', problem: describe(base, e.keyword, e.message, e.params) });
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
    if (!dob)
      problems.push({
        field: 'subscriber.dateOfBirth',
        problem: `is not a real date: ${EXPECTED['subscriber.dateOfBirth']}`,
      });
    else if (dob > today) problems.push({ field: 'subscriber.dateOfBirth', problem: 'is in the future' });
    else if (dob.getUTCFullYear() < 1900)
      problems.push({ field: 'subscriber.dateOfBirth', problem: 'is before 1900' });
  }
  const enc = isObject(req.encounter) ? (req.encounter as Loose) : undefined;
  const dos = enc?.dateOfService;
  if (typeof dos === 'string' && /^[0-9]{8}$/.test(dos)) {
    const date = parseDate8(dos);
    if (!date)
      problems.push({
        field: 'encounter.dateOfService',
        problem: `is not a real date: ${EXPECTED['encounter.dateOfService']}`,
      });
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
  problems.push(...chargeProblems(enc?.charges, 'encounter.charges'));
  const kept = options.demographicSearch ? withoutMemberIdRequired(problems, sub) : problems;
  return bounded(dedupe(kept));
}

/** A demographic search's problems: no member id is what it is; one sent is refused. */
function withoutMemberIdRequired(problems: FieldProblem[], sub: Loose | undefined): FieldProblem[] {
  const kept = problems.filter(
    (p) => !(p.field === 'subscriber.memberId' && p.problem.startsWith('is required')),
  );
  if (sub?.memberId !== undefined) {
    kept.push({ field: 'subscriber.memberId', problem: 'must be absent in a demographic search' });
  }
  return kept;
}

type Loose = Record<string, unknown>;

function isObject(v: unknown): v is Loose {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function formatProblems(problems: FieldProblem[]): string {
  const text = (p: FieldProblem) =>
    p.unknownName ? `\`${p.unknownName}\` ${p.problem}` : `${p.field} ${p.problem}`;
  return `Invalid request: ${problems.map(text).join('; ')}.`;
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

function describe(field: string, keyword: string, message: string, params: unknown): string {
  const limit = (params as { limit?: number }).limit;
  switch (keyword) {
    case 'minLength':
      return limit === 1 ? `is empty${expectedOf(field, ': it ')}` : `must be at least ${limit} characters`;
    case 'maxLength':
      return `must be at most ${limit} characters`;
    case 'minItems':
      return `needs at least ${limit} item${limit === 1 ? '' : 's'}`;
    case 'maxItems':
      return `may have at most ${limit} items`;
    case 'type':
    case 'pattern':
    case 'const':
    case 'anyOf':
      return (
        expectedOf(field) ||
        (keyword === 'type' ? message.replace(/^must be/, 'must be a') : 'has an invalid format')
      );
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
