// The retention report's cohorts from stored per-visitor state (migration 0275) plus the bundles that
// ended since it was computed. A visitor's cohort is the week of their first bundle on the link, ever, and
// their returns the later weeks they had a bundle in (server/insights/retention-query.ts); both combine
// exactly over bundles split in two sets: the first visit is the earlier of the two, the weeks the union.
// The job (report-cache-job.ts) stores, for the link's bundles that ended before the current hour, each
// visitor's first visit and weeks; a report reads the stored rows of the visitors whose first visit falls
// in its window (a key range), except those with a bundle that ended since, whose stored row is grouped
// with those bundles. A compared window ends inside a week: each stored week keeps the time of its first
// bundle, so that week counts only for the visitors who came before the window's end. The stored range
// is used only while its mark holds: the count of the bundles before its end (a late event adds one) and
// the mutation mark of the bundles (an erasure, added or finished, moves it; an erasure and as many late
// bundles at once leave the count as it was), hashed into the range row's `bundles`; and only when its
// weeks reach back to the window's start; otherwise the report reads the bundles. Every call notes the
// link for the job.
import type { Clickhouse } from "../storage/clickhouse/client";
import { mutationMarkParams, mutationMarkSql } from "../storage/clickhouse/mutations";
import { DAY_MS, HOUR_MS } from "../reports/period";
import { unlessMarkDenied } from "./mark-denied";
import { noteRetention } from "./report-demand";

const WEEK_MS = 7 * DAY_MS;
/** The weeks a stored row's bits reach back from range_end's week (bit 63 is that week). */
const STORED_WEEKS = 64;
/** A stored range is read for this long after its end (the tables' TTL is three hours). */
const STORED_FOR_MS = 2 * HOUR_MS;

/** This week's Monday, 00:00 UTC (1970-01-01 was a Thursday). */
const mondayOf = (ms: number) => Math.floor((ms - 4 * DAY_MS) / WEEK_MS) * WEEK_MS + 4 * DAY_MS;
/** The Monday of bit 0 of a range ending at `endMs`. */
export const anchorOf = (endMs: number) => mondayOf(endMs) - (STORED_WEEKS - 1) * WEEK_MS;

/** Per cohort (weeks after the window's start): visitors, those who returned, and visitors per active week. */
export interface CohortRow {
  c: number;
  n: string;
  ret: string;
  by_week: string[];
}

const LINK = "account_id = {account:UUID} AND link_id = {link:UUID}";
const at = (p: string) => `fromUnixTimestamp64Milli({${p}:Int64}, 'UTC')`;
const BEFORE_END = `${LINK} AND ended < ${at("end")}`;
const STATES = `${LINK} AND range_end = toDateTime(${at("end")}) AND computed_at = ${at("computed")}`;
/** The mutation mark the state is checked against: it is built from the bundles alone. Binds {mark_db:String}. */
const MARK = mutationMarkSql(["journey_event_bundles"]);
/**
 * A range's mark (what its row's `bundles` holds): the count of the link's bundles that ended before `end`
 * (an SQL expression of a DateTime64) hashed with the bundles' mutation mark.
 */
const rangeMarkSql = (ch: Clickhouse, end: string) =>
  `cityHash64((SELECT count() FROM ${ch.table("journey_event_bundles")} WHERE ${LINK} AND ended < ${end}), ${MARK})`;

/**
 * The cohorts of a window starting on a Monday, from the stored state; null when none is usable (the
 * caller then reads the bundles). One query for the latest range row and the bundle count it is checked
 * against, one for the cohorts.
 */
export async function queryRetentionStored(
  ch: Clickhouse,
  accountId: string,
  linkId: string,
  w: { fromMs: number; toMs: number },
  weeks: number,
  nowMs = Date.now(),
): Promise<CohortRow[] | null> {
  noteRetention(ch, { accountId, linkId }, nowMs);
  return unlessMarkDenied(() => readStored(ch, accountId, linkId, w, weeks, nowMs));
}

async function readStored(
  ch: Clickhouse,
  accountId: string,
  linkId: string,
  w: { fromMs: number; toMs: number },
  weeks: number,
  nowMs: number,
): Promise<CohortRow[] | null> {
  const [range] = await ch.query<{ end: string; computed: string; anchor: string; current: number }>(
    `
    WITH (SELECT argMax((toInt64(toUnixTimestamp(range_end)) * 1000, toUnixTimestamp64Milli(computed_at), anchor_ms, bundles), (range_end, computed_at))
      FROM ${ch.table("journey_retention_ranges")} WHERE ${LINK} AND range_end >= toDateTime(${at("since")})) AS r
    SELECT r.1 AS end, r.2 AS computed, r.3 AS anchor,
      r.4 = ${rangeMarkSql(ch, "fromUnixTimestamp64Milli(r.1, 'UTC')")} AS current`,
    { account: accountId, link: linkId, since: nowMs - STORED_FOR_MS, ...mutationMarkParams(ch) },
  );
  if (!range || Number(range.end) === 0 || Number(range.current) !== 1) return null;
  const anchor = Number(range.anchor);
  const endMs = Number(range.end);
  const shift = (w.fromMs - anchor) / WEEK_MS;
  if (!Number.isInteger(shift) || shift < 0 || shift >= STORED_WEEKS) return null;
  // A window that ends before the range's end (a comparison's) ends inside its week L: a stored week L
  // counts only when its first bundle started before the window's end (week_firsts, aligned with the set
  // bits of `weeks`), and later weeks not at all. The others read every stored week.
  const cut = w.toMs < endMs;
  const last = cut ? Math.floor((w.toMs - w.fromMs) / WEEK_MS) : 0;
  const limited = cut && last < weeks && shift + last < STORED_WEEKS;
  const mask = (2n ** BigInt(weeks) - 1n) & (cut ? 2n ** BigInt(last + 1) - 1n : -1n);
  const stored = `bitXor(bitAnd(bitShiftRight(weeks, {shift:UInt8}), {mask:UInt64}),
    if(bitTest(weeks, {bit:UInt8}) AND week_firsts[bitCount(bitAnd(weeks, {below:UInt64})) + 1] >= {lim:UInt32}, {lastBit:UInt64}, 0))`;
  const week = `intDiv(toUnixTimestamp64Milli(started) - {from:Int64}, ${WEEK_MS})`;
  // The bundles that ended since the range's end (the current hour, events dated ahead).
  const raw = `${LINK} AND ended >= ${at("end")} AND ended < ${at("rawTo")} AND started < ${at("to")}`;
  const visitors = `SELECT vh FROM ${ch.table("journey_event_bundles")} WHERE ${raw}`;
  return ch.query<CohortRow>(
    `
    SELECT c, sum(k) AS n, sumIf(k, bitShiftRight(mask, c + 1) != 0) AS ret,
      arrayMap(x -> toString(x), sumForEach(arrayMap(i -> k * bitTest(mask, i), range({weeks:UInt8})))) AS by_week
    FROM (
    -- Visitors per (cohort, weeks) first: a few thousand pairs, so the per-week sums run on those, not per visitor.
    SELECT c, mask, count() AS k FROM (
      -- The visitors without a bundle since: their stored row.
      SELECT intDiv(first_ms - {from:Int64}, ${WEEK_MS}) AS c, ${stored} AS mask
      FROM ${ch.table("journey_retention_states")}
      WHERE ${STATES} AND first_ms >= {from:Int64} AND first_ms < {to:Int64} AND vh NOT IN (${visitors})
      UNION ALL
      -- The others: their stored row with their bundles since (min and bitwise or: the union of both).
      SELECT intDiv(min(f) - {from:Int64}, ${WEEK_MS}) AS c, bitAnd(groupBitOr(m), {mask:UInt64}) AS mask
      FROM (
        SELECT vh, first_ms AS f, ${stored} AS m FROM ${ch.table("journey_retention_states")}
        WHERE ${STATES} AND first_ms < {to:Int64} AND vh IN (${visitors})
        UNION ALL
        SELECT vh, toUnixTimestamp64Milli(started) AS f,
          if(started >= ${at("from")}, bitShiftLeft(toUInt64(1), toUInt8(least(63, ${week}))), toUInt64(0)) AS m
        FROM ${ch.table("journey_event_bundles")} WHERE ${raw})
      GROUP BY vh
      HAVING min(f) >= {from:Int64})
    WHERE c < {weeks:UInt8}
    GROUP BY c, mask)
    GROUP BY c
    ORDER BY c`,
    {
      account: accountId,
      link: linkId,
      end: endMs,
      computed: Number(range.computed),
      from: w.fromMs,
      to: w.toMs,
      rawTo: w.toMs + DAY_MS,
      shift,
      weeks,
      mask: mask.toString(),
      // Without a cut, a test that never holds (a week's offsets are below 2^32 - 1).
      bit: limited ? shift + last : 0,
      below: limited ? (2n ** BigInt(shift + last) - 1n).toString() : "0",
      lim: limited ? w.toMs - (w.fromMs + last * WEEK_MS) : 2 ** 32 - 1,
      lastBit: limited ? (2n ** BigInt(last)).toString() : "0",
    },
  );
}

/**
 * Computes and stores the link's state for the bundles that ended before the current hour, unless the
 * latest stored range has that end and its mark holds (`force`: even then; the job's index saw the sums
 * of the bundles move under an unchanged mark, a TTL drop and as many late bundles). Returns whether it wrote.
 */
export async function storeRetentionRange(ch: Clickhouse, l: { accountId: string; linkId: string }, nowMs = Date.now(), force = false) {
  const endMs = Math.floor(nowMs / HOUR_MS) * HOUR_MS;
  const params = {
    account: l.accountId,
    link: l.linkId,
    end: endMs,
    anchor: anchorOf(endMs),
    computed: Date.now(),
    ...mutationMarkParams(ch),
  };
  // Marked before the states are read: a bundle added or a mutation begun or finished meanwhile makes the
  // range stale, never wrong.
  const [row] = await ch.query<{ bundles: string; count: string; current: string }>(
    `SELECT toString((SELECT argMax(bundles, computed_at) FROM ${ch.table("journey_retention_ranges")}
        WHERE ${LINK} AND range_end = toDateTime(${at("end")}))) AS bundles,
      (SELECT count() FROM ${ch.table("journey_event_bundles")} WHERE ${BEFORE_END}) AS count,
      toString(${rangeMarkSql(ch, at("end"))}) AS current`,
    params,
  );
  // A link without bundles before the hour has nothing to store.
  if (Number(row.count) === 0 || (!force && row.bundles === row.current)) return false;
  await ch.command(
    `
    INSERT INTO ${ch.table("journey_retention_states")} (account_id, link_id, range_end, computed_at, first_ms, vh, weeks, week_firsts)
    SELECT {account:UUID}, {link:UUID}, toDateTime(${at("end")}), ${at("computed")}, min(f), vh,
      groupBitOr(if(wk >= 0, bitShiftLeft(toUInt64(1), toUInt8(wk)), toUInt64(0))),
      arrayMap(x -> x.2, arraySort(groupArrayIf((wk, toUInt32(f - {anchor:Int64} - wk * ${WEEK_MS})), wk >= 0)))
    FROM (
      -- Per visitor and week from the anchor on (-1 before it): the week's first bundle start.
      SELECT vh, if(started >= ${at("anchor")}, intDiv(toUnixTimestamp64Milli(started) - {anchor:Int64}, ${WEEK_MS}), -1) AS wk,
        min(toUnixTimestamp64Milli(started)) AS f
      FROM ${ch.table("journey_event_bundles")} WHERE ${BEFORE_END}
      GROUP BY vh, wk)
    GROUP BY vh`,
    params,
  );
  await ch.command(
    `INSERT INTO ${ch.table("journey_retention_ranges")} (account_id, link_id, range_end, anchor_ms, bundles, computed_at)
    SELECT {account:UUID}, {link:UUID}, toDateTime(${at("end")}), {anchor:Int64}, {bundles:UInt64}, ${at("computed")}`,
    { ...params, bundles: row.current },
  );
  return true;
}

// The in-memory index's queries (retention-index.ts).
const hi = (col: string) => `toUInt32(bitShiftRight(${col}, 32))`;
const lo = (col: string) => `toUInt32(bitAnd(${col}, 4294967295))`;
/**
 * The link's bundles that ended before `end`: the range's mark (their count hashed with the bundles'
 * mutation mark: what a report checks, cheap; an added bundle or an erasure moves it) and, with `sums`,
 * the sums of their visitor hashes and end times too (what the job checks each round: rows gone without
 * a mutation, a TTL drop, and as many late bundles at once still move them; they read two whole columns,
 * so a report does not).
 */
const fingerprintSql = (ch: Clickhouse, sums: boolean) =>
  `concat(toString(${rangeMarkSql(ch, at("end"))})${
    sums
      ? `, ':', (SELECT concat(toString(sum(vh)), ':', toString(sum(toUnixTimestamp64Milli(ended))))
    FROM ${ch.table("journey_event_bundles")} WHERE ${BEFORE_END})`
      : ""
  })`;

/** The index's fingerprint: "range mark:sum of hashes:sum of ends"; the mark is what a report checks. */
export async function retentionFingerprint(ch: Clickhouse, l: { accountId: string; linkId: string }, endMs: number) {
  const [row] = await ch.query<{ f: string }>(`SELECT ${fingerprintSql(ch, true)} AS f`, {
    account: l.accountId,
    link: l.linkId,
    end: endMs,
    ...mutationMarkParams(ch),
  });
  return row?.f ?? "";
}

/** The part of a fingerprint a report checks (the range's mark). */
export const reportedPart = (fingerprint: string) => fingerprint.split(":")[0];

/** The index's rows: per visitor (key halves, sorted), the first visit, the 64 weeks' bits from `anchor` and each set week's first start (ms into the week). */
export interface RetentionIndexRows {
  /** "range mark:sum of hashes:sum of ends". */
  fingerprint: string;
  h: number[];
  l: number[];
  first: number[];
  wh: number[];
  wl: number[];
  wf: number[][];
}

/**
 * Every visitor's state over the link's bundles that ended before `end` as the job stored it (its latest
 * range row for `end`), with the fingerprint read first; null when that range is not current (nothing to
 * load), "too large" when it holds more than `maxRows` visitors (counted before any row is read).
 */
export async function loadRetentionIndexRows(
  ch: Clickhouse,
  l: { accountId: string; linkId: string },
  endMs: number,
  maxRows = Number.POSITIVE_INFINITY,
): Promise<RetentionIndexRows | "too large" | null> {
  const params = { account: l.accountId, link: l.linkId, end: endMs };
  // Read before the rows: a bundle added or a mutation meanwhile makes the index stale, never wrong.
  const fingerprint = await retentionFingerprint(ch, l, endMs);
  const [range] = await ch.query<{ bundles: string; computed: string; rows: string }>(
    `WITH (SELECT (toString(argMax(bundles, computed_at)), max(computed_at))
      FROM ${ch.table("journey_retention_ranges")} WHERE ${LINK} AND range_end = toDateTime(${at("end")})) AS r
    SELECT r.1 AS bundles, toUnixTimestamp64Milli(r.2) AS computed,
      (SELECT count() FROM ${ch.table("journey_retention_states")} WHERE ${LINK} AND range_end = toDateTime(${at("end")}) AND computed_at = r.2) AS rows`,
    params,
  );
  if (!range || Number(range.computed) <= 0 || range.bundles !== reportedPart(fingerprint)) return null;
  if (Number(range.rows) > maxRows) return "too large";
  const [rows] = await ch.query<Omit<RetentionIndexRows, "fingerprint">>(
    `SELECT groupArray(${hi("vh")}) AS h, groupArray(${lo("vh")}) AS l, groupArray(first_ms) AS first,
      groupArray(${hi("weeks")}) AS wh, groupArray(${lo("weeks")}) AS wl, groupArray(week_firsts) AS wf
    FROM (SELECT vh, first_ms, weeks, week_firsts FROM ${ch.table("journey_retention_states")} WHERE ${STATES} ORDER BY vh)`,
    { ...params, computed: Number(range.computed) },
  );
  return { fingerprint, ...(rows ?? { h: [], l: [], first: [], wh: [], wl: [], wf: [] }) };
}

/** One call's read beside the index: the range's mark now (count and mutation mark), and every bundle that ended at or after `end` (key halves, start, end ms). */
export async function readRetentionOpen(ch: Clickhouse, l: { accountId: string; linkId: string }, endMs: number) {
  const [row] = await ch.query<{ f: string; open: [number, number, number, number][] }>(
    `SELECT ${fingerprintSql(ch, false)} AS f,
      (SELECT groupArray((${hi("vh")}, ${lo("vh")}, toUnixTimestamp64Milli(started), toUnixTimestamp64Milli(ended)))
        FROM ${ch.table("journey_event_bundles")} WHERE ${LINK} AND ended >= ${at("end")}) AS open`,
    { account: l.accountId, link: l.linkId, end: endMs, ...mutationMarkParams(ch) },
  );
  return { mark: row?.f ?? "", open: (row?.open ?? []).map((b) => b.map(Number) as [number, number, number, number]) };
}
