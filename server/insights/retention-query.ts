// The retention report over journey_event_bundles (migration 0207: a row per insert batch, UTC day,
// session and visitor, so all of a row's events fall in one week): a visitor's first visit is the start
// of their first bundle on the link, ever; their cohort is its week (Monday, UTC); they return in a later
// week when they have an event in it before the window's end.
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Window } from "../reports/compare";
import { queryRetentionStored, type RetentionIndexReader } from "../journey/read";

export interface RetentionRow {
  /** The cohort's Monday, YYYY-MM-DD. */
  cohort: string;
  visitors: number;
  /** Of them, those with an event in a later week. */
  returning: number;
  /** Weeks after the cohort's (1, 2, …) → visitors with an event in that week. */
  returns: Map<number, number>;
}

const WEEK_MS = 604_800_000;

/**
 * Per cohort week whose first visits fall in the window (which starts on a Monday, 00:00 UTC): its
 * visitors and their returns. Each visitor's active weeks of the window are one bit each (week i after
 * the window's start), so the per-visitor work is a min and a bitwise or.
 */
export async function queryRetention(
  ch: Clickhouse,
  accountId: string,
  linkId: string,
  w: Window,
  weeks: number,
  index?: RetentionIndexReader,
): Promise<RetentionRow[]> {
  // The journey job's in-memory index, or its stored per-visitor state, when current (the same answer);
  // the bundles otherwise.
  const rows =
    (await index?.(w, weeks)) ??
    (await queryRetentionStored(ch, accountId, linkId, w, weeks)) ??
    (await queryRetentionRaw(ch, accountId, linkId, w, weeks));
  return rows.map((r) => {
    const c = Number(r.c);
    const returns = new Map<number, number>();
    r.by_week.forEach((n, i) => {
      if (i > c) returns.set(i - c, Number(n));
    });
    return {
      cohort: new Date(w.fromMs + c * WEEK_MS).toISOString().slice(0, 10),
      visitors: Number(r.n),
      returning: Number(r.ret),
      returns,
    };
  });
}

/** The cohorts from every bundle of the link: a group per visitor of its whole history. */
export function queryRetentionRaw(ch: Clickhouse, accountId: string, linkId: string, w: Window, weeks: number) {
  const bundles = ch.table("journey_event_bundles");
  const week = "intDiv(toUnixTimestamp64Milli(started) - {from:Int64}, {week:Int64})";
  return ch.query<{ c: number; n: string; ret: string; by_week: string[] }>(
    `
    SELECT c, sum(k) AS n, sumIf(k, bitShiftRight(mask, c + 1) != 0) AS ret,
      arrayMap(x -> toString(x), sumForEach(arrayMap(i -> k * bitTest(mask, i), range({weeks:UInt8})))) AS by_week
    FROM (
    -- Visitors per (cohort, weeks) first, so the per-week sums run on those pairs, not per visitor.
    SELECT c, mask, count() AS k FROM (
      SELECT vh, intDiv(toUnixTimestamp64Milli(min(started)) - {from:Int64}, {week:Int64}) AS c,
        bitAnd(groupBitOrIf(bitShiftLeft(toUInt64(1), toUInt8(least(63, ${week}))), started >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')),
          {mask:UInt64}) AS mask
      FROM ${bundles}
      WHERE account_id = {account:UUID} AND link_id = {link:UUID} AND started < fromUnixTimestamp64Milli({to:Int64}, 'UTC')
      GROUP BY vh
      HAVING min(started) >= fromUnixTimestamp64Milli({from:Int64}, 'UTC'))
    WHERE c < {weeks:UInt8}
    GROUP BY c, mask)
    GROUP BY c
    ORDER BY c`,
    { account: accountId, link: linkId, from: w.fromMs, to: w.toMs, week: WEEK_MS, weeks, mask: (2n ** BigInt(weeks) - 1n).toString() },
  );
}
