/**
 * The JSON side of payer list import: an array of objects (alone, or under `payers`, `items` or `data`)
 * with the CSV's column names as keys, or Stedi's List Payers records (`stediId`, `displayName`,
 * `primaryPayerId`, `aliases`, `transactionSupport.eligibilityCheck`, `operatingStates`). Each object
 * becomes a raw record of cells the importer validates like a CSV row.
 */
import {
  type CellValue,
  fieldOfHeader,
  headerKey,
  IMPORT_FIELDS,
  type ImportField,
  type RawRecord,
  type RecordList,
  type RowFilter,
  shown,
} from './import-values.ts';

export interface JsonList extends RecordList {
  /** The items are Stedi payer records. */
  stedi: boolean;
}

type Item = Record<string, unknown>;
const isObject = (v: unknown): v is Item => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON value as a cell: strings and numbers as text, booleans, arrays of either as a list. */
function cell(v: unknown): CellValue | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'boolean') return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number'))
    return v.map(String);
  return undefined;
}

const STEDI_KEYS = ['stediId', 'primaryPayerId', 'transactionSupport'];
const looksStedi = (item: unknown) => isObject(item) && STEDI_KEYS.some((k) => k in item);

/** A Stedi record: primaryPayerId is the id and NM109, the Stedi id joins the aliases. */
function stediRecord(item: Item, row: number): RawRecord {
  const cells: RawRecord['cells'] = {};
  const str = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : undefined);
  const primary = str(item.primaryPayerId);
  const stediId = str(item.stediId);
  if (primary !== undefined) cells.id = { column: 'primaryPayerId', value: primary };
  else if (stediId !== undefined) cells.id = { column: 'stediId', value: stediId };
  const name = str(item.displayName);
  if (name !== undefined) cells.name = { column: 'displayName', value: name };
  const aliases = cell(item.aliases);
  const list = [...(Array.isArray(aliases) ? aliases : typeof aliases === 'string' ? [aliases] : [])];
  if (stediId !== undefined) list.push(stediId);
  if (list.length) cells.aliases = { column: 'aliases', value: list };
  const support = isObject(item.transactionSupport)
    ? str(item.transactionSupport.eligibilityCheck)
    : undefined;
  if (support !== undefined) {
    cells.eligibility = { column: 'transactionSupport.eligibilityCheck', value: support };
    if (support === 'SUPPORTED')
      cells.enrollment = { column: 'transactionSupport.eligibilityCheck', value: 'not-required' };
  }
  const states = cell(item.operatingStates ?? item.states);
  if (states !== undefined) cells.states = { column: 'operatingStates', value: states };
  return { row, cells };
}

/** A generic object: keys named by the mapping (exactly, else compared as headers), else by the synonyms. */
function genericRecord(
  item: Item,
  row: number,
  mapping: Partial<Record<ImportField, string>>,
  problems: JsonList['problems'],
): RawRecord {
  const cells: RawRecord['cells'] = {};
  const keys = Object.keys(item);
  for (const field of IMPORT_FIELDS) {
    const wanted = mapping[field];
    const key =
      wanted !== undefined
        ? (keys.find((k) => k === wanted) ?? keys.find((k) => headerKey(k) === headerKey(wanted)))
        : keys.find((k) => fieldOfHeader(k) === field);
    if (key === undefined || item[key] === null || item[key] === undefined) continue;
    const value = cell(item[key]);
    if (value === undefined)
      problems.push({ row, column: key, message: 'is not text, a number, true/false or a list' });
    else cells[field] = { column: key, value };
  }
  return { row, cells };
}

/** The `only` filter on an item: its key named exactly, else compared as a header; absent → left out. */
function keeps(item: Item, only: RowFilter): boolean {
  const key =
    only.column in item
      ? only.column
      : Object.keys(item).find((k) => headerKey(k) === headerKey(only.column));
  const value = key === undefined ? undefined : cell(item[key]);
  return value !== undefined && only.accepts(value);
}

export function readJsonList(
  text: string,
  mapping: Partial<Record<ImportField, string>>,
  only: RowFilter | undefined,
  mode: 'auto' | 'stedi',
): JsonList {
  const out: JsonList = { records: [], ignoredColumns: [], problems: [], stedi: false };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    out.problems.push({
      row: 0,
      message: `not valid JSON (${err instanceof SyntaxError ? err.message : 'unreadable'})`,
    });
    return out;
  }
  const list = Array.isArray(parsed)
    ? parsed
    : isObject(parsed)
      ? [parsed.payers, parsed.items, parsed.data].find(Array.isArray)
      : undefined;
  if (!list) {
    out.problems.push({
      row: 0,
      message: 'expected an array of payers (or an object with "payers", "items" or "data")',
    });
    return out;
  }
  out.stedi = mode === 'stedi' || (Object.keys(mapping).length === 0 && looksStedi(list[0]));
  for (const [i, item] of list.entries()) {
    const row = i + 1;
    if (!isObject(item)) {
      out.problems.push({ row, message: `is ${shown(JSON.stringify(item) ?? 'undefined')}, not an object` });
      continue;
    }
    const record = out.stedi ? stediRecord(item, row) : genericRecord(item, row, mapping, out.problems);
    if (only && !keeps(item, only)) record.excluded = true;
    out.records.push(record);
  }
  const first = list.find(isObject);
  if (first && !out.stedi) {
    const used = new Set<string>();
    for (const r of out.records) for (const c of Object.values(r.cells)) used.add(c.column);
    if (only) used.add(only.column);
    out.ignoredColumns = Object.keys(first).filter((k) => !used.has(k));
  }
  return out;
}
