/**
 * The `fee_schedule` table: an organization's allowed amounts by procedure code (and payer). Callers keep
 * the rules (reading the CSV, refusing bad rows); this module only runs the SQL. Statements are typed as
 * described in typed.ts.
 */
import type { Db, Queryable } from './db.ts';
import { feeSchedule } from './schema.ts';
import { columns, type RowOf, sqlOf } from './typed.ts';

const FEE = columns(feeSchedule, ['procedureCode', 'payerId', 'amountCents']);
export type FeeRow = RowOf<typeof FEE>;

const FIND = sqlOf`SELECT ${FEE} FROM ${feeSchedule}
  WHERE ${feeSchedule.organizationId} = $1 AND ${feeSchedule.procedureCode} = ANY($2::text[])`;

/** The rows of these procedure codes, every payer's and the organization's defaults (payer id ''). */
export async function findFees(
  db: Queryable,
  organizationId: string,
  procedureCodes: readonly string[],
): Promise<FeeRow[]> {
  if (procedureCodes.length === 0) return [];
  const { rows } = await db.query<FeeRow>(FIND, [organizationId, [...new Set(procedureCodes)]]);
  return rows;
}

const LIST = sqlOf`SELECT ${FEE} FROM ${feeSchedule} WHERE ${feeSchedule.organizationId} = $1
  ORDER BY ${feeSchedule.procedureCode}, ${feeSchedule.payerId} LIMIT $2`;

/** The organization's schedule, by procedure code then payer (the defaults first), at most `limit` rows. */
export async function listFees(db: Queryable, organizationId: string, limit: number): Promise<FeeRow[]> {
  const { rows } = await db.query<FeeRow>(LIST, [organizationId, limit]);
  return rows;
}

const COUNT = sqlOf`SELECT count(*)::int AS n FROM ${feeSchedule} WHERE ${feeSchedule.organizationId} = $1`;

export async function countFees(db: Queryable, organizationId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(COUNT, [organizationId]);
  return rows[0]?.n ?? 0;
}

const CLEAR = sqlOf`DELETE FROM ${feeSchedule} WHERE ${feeSchedule.organizationId} = $1`;
const INSERT = sqlOf`INSERT INTO ${feeSchedule} (${feeSchedule.organizationId}, ${feeSchedule.procedureCode}, ${feeSchedule.payerId}, ${feeSchedule.amountCents})
  SELECT $1, x.code, x.payer, x.cents FROM jsonb_to_recordset($2::jsonb) AS x(code text, payer text, cents bigint)`;

/**
 * Replaces the organization's whole schedule in one transaction: a reader sees the old one or the new one,
 * never half of each. Rows are unique by (procedure code, payer): the caller has refused duplicates.
 */
export async function replaceFees(
  db: Db,
  organizationId: string,
  rows: readonly Pick<FeeRow, 'procedureCode' | 'payerId' | 'amountCents'>[],
): Promise<void> {
  const json = JSON.stringify(
    rows.map((r) => ({ code: r.procedureCode, payer: r.payerId, cents: r.amountCents })),
  );
  await db.transaction(async (tx) => {
    await tx.query(CLEAR, [organizationId]);
    if (rows.length) await tx.query(INSERT, [organizationId, json]);
  });
}
