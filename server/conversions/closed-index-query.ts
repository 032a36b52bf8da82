// The SQL shared by the conversion reports' in-memory indexes (breakdown-index.ts, time-to-convert-index.ts):
// the mark that tells whether the events before an hour changed since an index was loaded, read in the
// same statement as each call's open part. 64-bit hashes travel as two UInt32 halves and times as
// Float64 milliseconds, so that rows parse as plain JSON numbers.
import type { Clickhouse } from "../storage/clickhouse/client";
import { mutationMarkParams, mutationMarkSql } from "../storage/clickhouse/mutations";
import type { ClickhouseTable } from "../storage/clickhouse/tables";

/** An account's scope: the whole account (linkId null) or one link. */
export interface IndexScope {
  accountId: string;
  linkId: string | null;
}

export const hiOf = (col: string) => `toUInt32(bitShiftRight(${col}, 32))`;
export const loOf = (col: string) => `toUInt32(bitAnd(${col}, 4294967295))`;
export const msOf = (col: string) => `toFloat64(toUnixTimestamp64Milli(${col}))`;
export const atParam = (param: string) => `fromUnixTimestamp64Milli({${param}:Int64}, 'UTC')`;
/** The scope's condition on a table with account_id and link_id columns. */
export const scopeWhere = (s: IndexScope, prefix = "") =>
  `${prefix}account_id = {account:UUID}${s.linkId ? ` AND ${prefix}link_id = {link:UUID}` : ""}`;
export const scopeParams = (s: IndexScope) => ({ account: s.accountId, link: s.linkId ?? "00000000-0000-0000-0000-000000000000" });

/**
 * The mark of a scope's events before `until`: the event bundles (migration 0207) that ended before it,
 * and those after it that began before it, counted, and the mutations of the journey tables (an erasure,
 * ALTER … DELETE or a lightweight DELETE, is one). Every insert of an event before `until` (a late event, a
 * batch across the hour's start) adds such a bundle row; merges and replayed chunks add none; an erasure
 * is a mutation, so it moves the mark also when late events add as many rows at once.
 */
export function bundleMarkColumns(ch: Clickhouse, s: IndexScope, tables: ClickhouseTable[] = ["journey_events", "journey_event_bundles"]) {
  const b = `${ch.table("journey_event_bundles")} WHERE ${scopeWhere(s)}`;
  return [
    `(SELECT count() FROM ${b} AND ended < ${atParam("until")}) AS closed_mark`,
    `(SELECT count() FROM ${b} AND ended >= ${atParam("until")} AND started < ${atParam("until")}) AS spanning_mark`,
    `${mutationMarkSql(tables)} AS mutation_mark`,
  ];
}

/** The parameters of the mark's columns beside the scope's. */
export const markParams = (ch: Clickhouse, untilMs: number) => ({ until: untilMs, ...mutationMarkParams(ch) });

export const markOf = (row: Record<string, unknown> | undefined) =>
  `${Number(row?.closed_mark ?? 0)}/${Number(row?.spanning_mark ?? 0)}/${Number(row?.mutation_mark ?? 0)}`;

export async function readBundleMark(ch: Clickhouse, s: IndexScope, untilMs: number, tables?: ClickhouseTable[]): Promise<string> {
  const [row] = await ch.query<Record<string, unknown>>(`SELECT ${bundleMarkColumns(ch, s, tables).join(", ")}`, {
    ...scopeParams(s),
    ...markParams(ch, untilMs),
  });
  return markOf(row);
}
