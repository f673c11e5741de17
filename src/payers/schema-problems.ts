/**
 * Every problem of a value against a TypeBox (JSON Schema) schema, in words an operator can act on:
 * `payers[2].connector.url has an invalid format`, `payers[0].timeoutMS is not a known field (did you mean
 * timeoutMs?)`. The compiled checker stops at the first bad array item and reports a union as "must match
 * a schema in anyOf"; a payers file with ten mistakes should be fixed in one pass, so this walks the
 * schema itself. It reads the keywords the directory schema uses; the caller still runs the compiled
 * check afterwards, so a keyword this walker does not know can never let a bad file through.
 */

interface Schema {
  type?: string;
  const?: unknown;
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  /** A record keyed by names of one pattern (the payers file's `connections`). */
  patternProperties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
  items?: Schema;
  maxItems?: number;
  minItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  description?: string;
}

export function schemaProblems(schema: unknown, value: unknown, path: string): string[] {
  const problems: string[] = [];
  walk(schema as Schema, value, path, problems);
  return problems;
}

function walk(s: Schema, value: unknown, path: string, out: string[]): void {
  if (s.anyOf) union(s, value, path, out);
  else if (s.const !== undefined) {
    if (value !== s.const) out.push(`${path} must be ${JSON.stringify(s.const)}`);
  } else if (s.type === 'object') object(s, value, path, out);
  else if (s.type === 'array') array(s, value, path, out);
  else if (s.type === 'string') string(s, value, path, out);
  else if (s.type === 'integer' || s.type === 'number') number(s, value, path, out);
  else if (s.type === 'boolean' && typeof value !== 'boolean') out.push(`${path} must be true or false`);
}

function object(s: Schema, value: unknown, path: string, out: string[]): void {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    out.push(`${path || 'the document'} must be an object`);
    return;
  }
  const record = value as Record<string, unknown>;
  if (s.patternProperties) {
    patterned(s.patternProperties, record, path, out);
    return;
  }
  const known = s.properties ?? {};
  const at = (name: string) => (path ? `${path}.${name}` : name);
  for (const name of s.required ?? []) {
    if (record[name] === undefined) out.push(`${at(name)} is required`);
  }
  for (const [name, v] of Object.entries(record)) {
    const property = Object.hasOwn(known, name) ? known[name] : undefined;
    if (property) walk(property, v, at(name), out);
    else if (s.additionalProperties === false) out.push(`${at(name)} ${unknownField(name, known)}`);
  }
}

function patterned(
  patterns: Record<string, Schema>,
  record: Record<string, unknown>,
  path: string,
  out: string[],
): void {
  for (const [name, v] of Object.entries(record)) {
    const at = path ? `${path}.${name}` : name;
    const match = Object.entries(patterns).find(([p]) => patternOf(p).test(name));
    if (match) walk(match[1], v, at, out);
    else out.push(`${at}: "${name}" is not a valid name (${Object.keys(patterns).join(' or ')})`);
  }
}

/** Refused, with the field the writer probably meant when only the case differs (`timeoutMS`). */
function unknownField(name: string, known: Record<string, Schema>): string {
  const meant = Object.keys(known).find((k) => k.toLowerCase() === name.toLowerCase());
  return `is not a known field${meant ? ` (did you mean ${meant}?)` : ''}`;
}

function array(s: Schema, value: unknown, path: string, out: string[]): void {
  if (!Array.isArray(value)) {
    out.push(`${path} must be an array`);
    return;
  }
  if (s.maxItems !== undefined && value.length > s.maxItems)
    out.push(`${path} has ${value.length} items; at most ${s.maxItems} are allowed`);
  if (s.minItems !== undefined && value.length < s.minItems)
    out.push(`${path} needs at least ${s.minItems} items`);
  if (s.items) for (const [i, item] of value.entries()) walk(s.items, item, `${path}[${i}]`, out);
}

function string(s: Schema, value: unknown, path: string, out: string[]): void {
  if (typeof value !== 'string') {
    out.push(`${path} must be a string`);
    return;
  }
  const length = [...value].length;
  if (s.minLength !== undefined && length < s.minLength)
    out.push(s.minLength === 1 ? `${path} is empty` : `${path} is shorter than ${s.minLength} characters`);
  else if (s.maxLength !== undefined && length > s.maxLength)
    out.push(`${path} is longer than ${s.maxLength} characters`);
  else if (s.pattern !== undefined && !patternOf(s.pattern).test(value))
    out.push(`${path} has an invalid format`);
}

const patterns = new Map<string, RegExp>();
/** Each schema pattern compiled once (a directory of 10,000 payers tests the same few thousands of times). */
function patternOf(source: string): RegExp {
  let re = patterns.get(source);
  if (!re) {
    re = new RegExp(source, 'u');
    patterns.set(source, re);
  }
  return re;
}

function number(s: Schema, value: unknown, path: string, out: string[]): void {
  const integer = s.type === 'integer';
  if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    out.push(`${path} must be ${integer ? 'an integer' : 'a number'}`);
    return;
  }
  if ((s.minimum !== undefined && value < s.minimum) || (s.maximum !== undefined && value > s.maximum)) {
    out.push(`${path} must be from ${s.minimum ?? '-∞'} to ${s.maximum ?? '∞'}`);
  }
}

/**
 * A union of objects is read as the variant the value says it is: by its `type` (connectors, auth), or,
 * without a discriminator, by which variant knows its keys (a secret reference: `env` or `file`).
 */
function union(s: Schema, value: unknown, path: string, out: string[]): void {
  const variants = s.anyOf ?? [];
  if (variants.some((v) => schemaProblems(v, value, path).length === 0)) return;
  const tags = variants.map((v) => v.properties?.type?.const).filter((t) => typeof t === 'string');
  const record =
    value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  if (!record) {
    out.push(`${path} must be an object`);
    return;
  }
  if (tags.length === variants.length) {
    const chosen = variants.find((v) => v.properties?.type?.const === record.type);
    if (chosen) walk(chosen, value, path, out);
    else out.push(`${path}.type must be one of ${tags.join(', ')}`);
    return;
  }
  const keys = Object.keys(record);
  const chosen = variants.find((v) => keys.length > 0 && keys.every((k) => k in (v.properties ?? {})));
  if (chosen) walk(chosen, value, path, out);
  else out.push(`${path} must be ${describeVariants(variants)}`);
}

/** `{"env": …} or {"file": …}`: the shapes a union of objects accepts, by their required keys. */
function describeVariants(variants: Schema[]): string {
  return variants
    .map((v) => `{${(v.required ?? Object.keys(v.properties ?? {})).map((k) => `"${k}": …`).join(', ')}}`)
    .join(' or ');
}
