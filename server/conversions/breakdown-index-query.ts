// The SQL of the device and country breakdowns' in-memory index (breakdown-index.ts): what the journey
// job loads of a scope's events before the index's hour, per (label, visitor), and what a breakdown reads
// on each call: the bundle mark, the events from that hour on (the open part) and the conversions and
// revenue per label from the hourly rollup (migration 0200).
import type { Clickhouse } from "../storage/clickhouse/client";
import { mutationMarkSql } from "../storage/clickhouse/mutations";
import {
  atParam,
  bundleMarkColumns,
  hiOf,
  type IndexScope,
  loOf,
  markOf,
  markParams,
  msOf,
  scopeParams,
  scopeWhere,
} from "./closed-index-query";

export type IndexedDimension = "device" | "country";
const LABEL: Record<IndexedDimension, string> = { device: "toString(device_type)", country: "toString(country_code)" };
/** Per (label, visitor) rows: [last event, last conversion (0: none)], ms. */
export interface LabelRows {
  label: string[];
  hi: number[];
  lo: number[];
  last: number[];
  converted: number[];
}

const perVisitor = (ch: Clickhouse, s: IndexScope, d: IndexedDimension, where: string) =>
  `SELECT ${LABEL[d]} AS label, cityHash64(visitor_id) AS vh, max(${msOf("timestamp")}) AS last,
      maxIf(${msOf("timestamp")}, event_type = 'conversion') AS converted, countIf(event_type = 'conversion') AS n,
      sumIf(revenue_cents, event_type = 'conversion') AS cents
    FROM ${ch.table("journey_events")} WHERE ${scopeWhere(s)} AND ${where}
    GROUP BY label, vh`;
const arrays = `groupArray(label) AS label, groupArray(${hiOf("vh")}) AS hi, groupArray(${loOf("vh")}) AS lo, groupArray(last) AS last, groupArray(converted) AS converted`;
const openArrays = `${arrays}, groupArray(n) AS n, groupArray(cents) AS cents`;

/** Per label: its visitors' rows (hash halves, last event, last conversion, ms), in one statement. */
export interface LabelVisitors {
  label: string;
  hi: number[];
  lo: number[];
  last: number[];
  converted: number[];
}

/**
 * The scope's events in [since, until), per label and visitor: a row per label (one aggregation over the
 * raw events; slicing it by the visitor hash would hash every event once per slice). Each label's rows
 * are usually in hash order; the caller checks.
 */
export async function loadLabelRows(ch: Clickhouse, s: IndexScope, d: IndexedDimension, sinceMs: number, untilMs: number) {
  return ch.query<LabelVisitors>(
    `SELECT label, groupArray(${hiOf("vh")}) AS hi, groupArray(${loOf("vh")}) AS lo, groupArray(last) AS last, groupArray(converted) AS converted
     FROM (${perVisitor(ch, s, d, `timestamp >= ${atParam("since")} AND timestamp < ${atParam("until")}`)} ORDER BY label, vh)
     GROUP BY label`,
    { ...scopeParams(s), since: sinceMs, until: untilMs },
  );
}

/** Per label, its hours (ms) with conversions, and their conversions and revenue (cents), from the hourly rollup. */
export interface LabelHours {
  label: string;
  hours: number[];
  conversions: number[];
  cents: number[];
}

/** The rollup's (migration 0200) hours with conversions in [since, until), per label. */
export async function loadLabelHours(
  ch: Clickhouse,
  s: IndexScope,
  d: IndexedDimension,
  sinceMs: number,
  untilMs: number,
): Promise<LabelHours[]> {
  const rows = await ch.query<{ label: string; hours: number[]; conversions: (string | number)[]; cents: (string | number)[] }>(
    `SELECT label, groupArray(h) AS hours, groupArray(n) AS conversions, groupArray(c) AS cents FROM (
      SELECT label, toFloat64(toUnixTimestamp(hour)) * 1000 AS h, sum(conversions) AS n, sum(revenue_cents) AS c
      FROM ${ch.table("journey_dims_hourly")}
      WHERE ${scopeWhere(s)} AND dimension = {dimension:String} AND hour >= toDateTime(intDiv({since:Int64}, 1000), 'UTC')
        AND hour < toDateTime(intDiv({until:Int64}, 1000), 'UTC')
      GROUP BY label, hour HAVING n > 0) GROUP BY label`,
    { ...scopeParams(s), dimension: d, since: sinceMs, until: untilMs },
  );
  return rows.map((r) => ({ label: r.label, hours: r.hours, conversions: r.conversions.map(Number), cents: r.cents.map(Number) }));
}

export interface OpenLabels {
  mark: string;
  /** Per (label, visitor): the rows, and each one's conversions and revenue (cents). */
  open: LabelRows & { n: number[]; cents: number[] };
}

/**
 * One statement: the mark at `until` and the events from `until` on per (label, visitor), as the branches
 * of one UNION ALL (one pipeline: its reads run side by side, where scalar subqueries would run one after
 * the other), each row tagged with its kind; the mark's counts come in `n`.
 */
export async function readOpenLabels(ch: Clickhouse, s: IndexScope, d: IndexedDimension, untilMs: number): Promise<OpenLabels> {
  const u = atParam("until");
  const bundles = `${ch.table("journey_event_bundles")} WHERE ${scopeWhere(s)}`;
  const rows = await ch.query<{
    kind: string;
    label: string[];
    hi: number[];
    lo: number[];
    last: number[];
    converted: number[];
    n: (string | number)[];
    cents: (string | number)[];
  }>(
    `SELECT kind, ${openArrays} FROM (
      SELECT 'closed' AS kind, '' AS label, toUInt64(0) AS vh, toFloat64(0) AS last, toFloat64(0) AS converted, count() AS n, toInt64(0) AS cents
        FROM ${bundles} AND ended < ${u}
      UNION ALL SELECT 'spanning', '', 0, 0, 0, count(), 0 FROM ${bundles} AND ended >= ${u} AND started < ${u}
      UNION ALL SELECT 'mutations', '', 0, 0, 0, ${mutationMarkSql(["journey_events", "journey_event_bundles"])}, 0
      UNION ALL SELECT 'open', label, vh, last, converted, n, cents FROM (${perVisitor(ch, s, d, `timestamp >= ${u}`)})
    ) GROUP BY kind`,
    { ...scopeParams(s), ...markParams(ch, untilMs) },
  );
  const of = (kind: string) => rows.find((r) => r.kind === kind);
  const count = (kind: string) => Number(of(kind)?.n[0] ?? 0);
  const open = of("open") ?? { label: [], hi: [], lo: [], last: [], converted: [], n: [], cents: [] };
  return {
    mark: markOf({ closed_mark: count("closed"), spanning_mark: count("spanning"), mutation_mark: count("mutations") }),
    open: {
      label: open.label,
      hi: open.hi,
      lo: open.lo,
      last: open.last,
      converted: open.converted,
      n: open.n.map(Number),
      cents: open.cents.map(Number),
    },
  };
}
