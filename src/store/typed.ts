/**
 * SQL the compiler checks: the table modules write their statements with `sqlOf`, a tagged template whose
 * placeholders are the schema's own objects (src/store/schema.ts): `${checks.organizationId}` becomes
 * `organization_id`, `${checks}` becomes `checks`. A misspelt column (`checks.organisationId`) is then a
 * `tsc` error, not a statement that fails when it first runs; `columns()` names each column it selects
 * with its drizzle key and carries the row type (`RowOf`), so a statement's rows and their type cannot
 * disagree either.
 *
 * Why this and not drizzle's query builder, or drizzle's own `sql` template run by a drizzle driver:
 * - Statements run through `Queryable` (db.ts), which is more than a driver: the request budget, fault
 *   translation, PGlite's one-at-a-time queue and its stop after a PANIC, transactions that skip ROLLBACK.
 *   A drizzle session would go around all of that, or need an adapter that maps its array rows back.
 * - drizzle's `sql` renders every column table-qualified (`"checks"."id"`), which PostgreSQL refuses in
 *   an INSERT column list and an UPDATE's SET; our statements also use table aliases (`k.prefix`).
 * - Speed: the text of every statement is built once, when its module loads, and is the text of the
 *   hand-written SQL it replaces (up to white space): a call only sends it with its parameters, as before.
 *   The query builder would build the text on every call (or need a prepared query per Queryable, and a
 *   transaction is a new Queryable each time).
 * - The row types stay drizzle's: `columns()` picks from `typeof table.$inferSelect`, `$type<>()` included.
 * Parameters stay positional (`$1`) in the text, never interpolated: `sqlOf` takes no values, so no value
 * can end up in SQL text (or in a log of it).
 */
import { Column, getTableColumns, getTableName, is, Table } from 'drizzle-orm';

declare const typed: unique symbol;
declare const rowType: unique symbol;

/** SQL text made by `sqlOf` or `columns`: from the schema's names and this module's constants only. */
export type TypedSql = string & { readonly [typed]: true };

/** A select list made by `columns`, with the type of the rows it reads. */
export type Columns<R> = TypedSql & { readonly [rowType]: R };

/** The row type a `columns()` list reads. */
export type RowOf<C> = C extends Columns<infer R> ? R : never;

/** A table's row as drizzle infers it from the schema. */
export type Row<T extends Table> = T['$inferSelect'];

const PLAIN = /^[a-z_][a-z0-9_]*$/;
const ident = (name: string) => (PLAIN.test(name) ? name : `"${name.replaceAll('"', '""')}"`);

/**
 * A statement (or part of one) whose table and column names are schema objects: a column is its SQL
 * name, a table its SQL name, a number (a constant, e.g. a batch size) its digits, other `TypedSql` as is.
 */
export function sqlOf(
  strings: TemplateStringsArray,
  ...parts: (Column | Table | TypedSql | number)[]
): TypedSql {
  let text = strings[0]!;
  parts.forEach((part, i) => {
    if (is(part, Column)) text += ident(part.name);
    else if (is(part, Table)) text += ident(getTableName(part));
    else if (typeof part === 'number') {
      if (!Number.isInteger(part)) throw new Error('sqlOf: only integer constants');
      text += String(part);
    } else text += part;
    text += strings[i + 1]!;
  });
  return text as TypedSql;
}

/**
 * The select (or RETURNING) list of `keys` of `table`, each column named by its drizzle key
 * (`created_at AS "createdAt"`), prefixed with `alias.` when the statement names the table so.
 */
export function columns<T extends Table, K extends keyof Row<T> & string>(
  table: T,
  keys: readonly K[],
  alias?: string,
): Columns<Pick<Row<T>, K>> {
  const all = getTableColumns(table) as Record<string, Column>;
  const prefix = alias ? `${alias}.` : '';
  return keys
    .map((key) => {
      const name = all[key]!.name;
      return name === key ? `${prefix}${ident(name)}` : `${prefix}${ident(name)} AS "${key}"`;
    })
    .join(', ') as Columns<Pick<Row<T>, K>>;
}

/** Two select lists as one (`a, b`), e.g. of two joined tables, reading both rows' fields. */
export function joinColumns<A, B>(a: Columns<A>, b: Columns<B>): Columns<A & B> {
  return `${a}, ${b}` as Columns<A & B>;
}
