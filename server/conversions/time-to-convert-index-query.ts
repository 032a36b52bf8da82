// The SQL of the time-to-convert report's in-memory index (time-to-convert-index.ts): what the journey job
// loads — every (link, visitor) of the scope whose first conversion on the link is before the index's
// hour, with the time it is measured from — and what the report reads on each call: the mark (the
// bundles', the clicks' before that hour, the mutations), the (link, visitor)s whose first conversion is
// from that hour on, and the clicks from that hour on.
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

/** A (link, visitor)'s key: the link and the visitor hash of the bundles, hashed together. */
const PAIR_KEY = (link: string, visitor: string) => `cityHash64(${link}, cityHash64(${visitor}))`;

/**
 * (link, visitor)s from journey_first_touch (migrations 0200, 0201) with their first conversion on the
 * link, and the time it is measured from: the visitor's click (clicks.click_id is the visitor_id the
 * tracker sends after an svc_ref redirect) or, without one, their first journey event on the link — as
 * queries.ts getTimeToConvert reads them. `which` narrows the rows of the rollup read.
 */
const pairs = (ch: Clickhouse, s: IndexScope, which: string, having: string) => `
  WITH conv AS (
    SELECT link_id, visitor_id, min(first_at) AS first_touch, min(first_conversion_at) AS converted_at
    FROM ${ch.table("journey_first_touch")} WHERE ${scopeWhere(s)}${which}
    GROUP BY link_id, visitor_id HAVING ${having}
  ), click AS (
    SELECT link_id, click_id, min(timestamp) AS clicked_at, 1 AS matched FROM ${ch.table("clicks")}
    WHERE ${scopeWhere(s)} AND click_id IN (SELECT toUUIDOrZero(visitor_id) FROM conv)
    GROUP BY link_id, click_id
  )
  SELECT ${msOf("assumeNotNull(conv.converted_at)")} AS converted, ${msOf("if(click.matched = 1, click.clicked_at, conv.first_touch)")} AS touched,
    click.matched = 1 AS clicked, cityHash64(conv.link_id, toUUIDOrZero(conv.visitor_id)) AS k,
    ${PAIR_KEY("conv.link_id", "conv.visitor_id")} AS pk
  FROM conv LEFT JOIN click ON click.link_id = conv.link_id AND click.click_id = toUUIDOrZero(conv.visitor_id)`;

/**
 * Per (link, visitor): its key (hash halves), first conversion and the time it is measured from (ms),
 * whether from a click, and the key of a click of it (link and click id, hash halves).
 */
export interface ConvertedPairs {
  pkHi: number[];
  pkLo: number[];
  converted: number[];
  touched: number[];
  clicked: number[];
  hi: number[];
  lo: number[];
}
const arrays = `groupArray(${hiOf("pk")}), groupArray(${loOf("pk")}), groupArray(converted), groupArray(touched), groupArray(toUInt8(clicked)), groupArray(${hiOf("k")}), groupArray(${loOf("k")})`;
const asPairs = (v: unknown): ConvertedPairs => {
  const [pkHi, pkLo, converted, touched, clicked, hi, lo] = (v ?? [[], [], [], [], [], [], []]) as number[][];
  return { pkHi, pkLo, converted, touched, clicked, hi, lo };
};

/** Every (link, visitor) of the scope whose first conversion on the link is before `until`. */
export async function loadConvertedPairs(ch: Clickhouse, s: IndexScope, untilMs: number): Promise<ConvertedPairs> {
  const [row] = await ch.query<{ p: unknown }>(
    `SELECT (${arrays}) AS p FROM (${pairs(ch, s, "", `converted_at < ${atParam("until")}`)} ORDER BY pk)`,
    {
      ...scopeParams(s),
      until: untilMs,
    },
  );
  return asPairs(row?.p);
}

/** Per (link, visitor) not converted before `until` with an event before it: its key (hash halves) and first event (ms). */
export interface FirstTouches {
  hi: number[];
  lo: number[];
  at: number[];
}

/** The (link, visitor)s of the scope first seen before `until` and not converted before it, in key order. */
export async function loadFirstTouches(ch: Clickhouse, s: IndexScope, untilMs: number): Promise<FirstTouches> {
  const [row] = await ch.query<{ p: unknown }>(
    `SELECT (groupArray(${hiOf("pk")}), groupArray(${loOf("pk")}), groupArray(at)) AS p FROM (
      SELECT ${PAIR_KEY("link_id", "visitor_id")} AS pk, ${msOf("min(first_at)")} AS at, min(first_conversion_at) AS converted
      FROM ${ch.table("journey_first_touch")} WHERE ${scopeWhere(s)}
      GROUP BY link_id, visitor_id
      HAVING at < {until:Int64} AND (converted IS NULL OR converted >= ${atParam("until")})
      ORDER BY pk)`,
    { ...scopeParams(s), until: untilMs },
  );
  const [hi, lo, at] = (row?.p ?? [[], [], []]) as number[][];
  return { hi, lo, at };
}

/** The clicks before `until` counted by the hourly click rollup (migration 0100): a late click changes it. */
const clicksMark = (ch: Clickhouse) =>
  `(SELECT sum(clicks) FROM ${ch.table("clicks_hourly")} WHERE account_id = {account:UUID} AND hour < ${atParam("until")}) AS clicks_mark`;

const ZERO = "00000000-0000-0000-0000-000000000000";

/**
 * The clicks, of any time, of the click ids given: per (link, click id), its key (hash halves) and first
 * time (ms). For the visitors first converted from the index's hour on whose id is a click id: the
 * clicks table is not sorted by click id, so this reads the scope's clicks, and runs only when needed.
 */
export async function readClicksOf(ch: Clickhouse, s: IndexScope, ids: string[]) {
  const [row] = await ch.query<{ p: unknown }>(
    `SELECT (groupArray(${hiOf("k")}), groupArray(${loOf("k")}), groupArray(at)) AS p FROM (
      SELECT cityHash64(link_id, click_id) AS k, min(${msOf("timestamp")}) AS at FROM ${ch.table("clicks")}
      WHERE ${scopeWhere(s)} AND click_id IN {ids:Array(UUID)} GROUP BY link_id, click_id)`,
    { ...scopeParams(s), ids },
  );
  const [hi, lo, at] = (row?.p ?? [[], [], []]) as number[][];
  return { hi, lo, at };
}

export const MARK_TABLES = ["journey_events", "journey_event_bundles", "journey_first_touch", "clicks"] as const;

/** The mark at `until` as the job reads it before a load (the form readOpenPairs gives). */
export async function readTimeToConvertMark(ch: Clickhouse, s: IndexScope, untilMs: number): Promise<string> {
  const [row] = await ch.query<Record<string, string | number>>(
    `SELECT ${[...bundleMarkColumns(ch, s, [...MARK_TABLES]), clicksMark(ch)].join(", ")}`,
    { ...scopeParams(s), ...markParams(ch, untilMs) },
  );
  const n = (v: unknown) => String(Number(v ?? 0));
  return `${n(row?.closed_mark)}/${n(row?.spanning_mark)}/${n(row?.mutation_mark)}/${n(row?.clicks_mark)}`;
}

export interface OpenPairs {
  mark: string;
  /**
   * The (link, visitor)s with a conversion from `until` on: key, first conversion from then (ms), the key
   * of a click of theirs, and their visitor id when it is a click id (a UUID; '' otherwise).
   */
  open: { hi: number[]; lo: number[]; converted: number[]; clickHi: number[]; clickLo: number[]; clickIds: string[] };
  /** The (link, visitor)s of the bundles from `until` on: key and first event (ms). */
  touches: { hi: number[]; lo: number[]; at: number[] };
  /** The clicks from `until` on: per (link, click id), its key (hash halves) and first time (ms). */
  clicks: { hi: number[]; lo: number[]; at: number[] };
}

/**
 * One statement: the mark at `until`, and the conversions, bundles and clicks from `until` on, as the
 * branches of one UNION ALL (one pipeline: its reads run side by side, where scalar subqueries would run
 * one after the other), each row tagged with its kind: `k` a 64-bit key (hash halves), `t` a time (ms),
 * `x` a count or a second key.
 */
export async function readOpenPairs(ch: Clickhouse, s: IndexScope, untilMs: number): Promise<OpenPairs> {
  const u = atParam("until");
  const converted = `${ch.table("journey_conversion_times")} WHERE ${scopeWhere(s)} AND converted_at >= ${u}`;
  const rows = await ch.query<{ kind: string; kh: number[]; kl: number[]; t: number[]; xh: number[]; xl: number[]; v: string[] }>(
    `SELECT kind, groupArray(${hiOf("k")}) AS kh, groupArray(${loOf("k")}) AS kl, groupArray(t) AS t, groupArray(${hiOf("x")}) AS xh, groupArray(${loOf("x")}) AS xl, groupArray(v) AS v FROM (
      SELECT 'closed' AS kind, toUInt64(0) AS k, toFloat64(0) AS t, count() AS x, '' AS v FROM ${ch.table("journey_event_bundles")} WHERE ${scopeWhere(s)} AND ended < ${u}
      UNION ALL SELECT 'mutations', 0, 0, ${mutationMarkSql(MARK_TABLES)}, ''
      UNION ALL SELECT 'clicks before', 0, 0, sum(clicks), '' FROM ${ch.table("clicks_hourly")} WHERE account_id = {account:UUID} AND hour < ${u}
      UNION ALL SELECT 'converted', ${PAIR_KEY("link_id", "visitor_id")}, ${msOf("converted_at")}, cityHash64(link_id, toUUIDOrZero(visitor_id)),
        if(toUUIDOrZero(visitor_id) = toUUID('${ZERO}'), '', toString(toUUIDOrZero(visitor_id))) FROM ${converted}
      UNION ALL SELECT 'bundle', cityHash64(link_id, vh), ${msOf("started")}, started < ${u}, '' FROM ${ch.table("journey_event_bundles")} WHERE ${scopeWhere(s)} AND ended >= ${u}
      UNION ALL SELECT 'click', cityHash64(link_id, click_id), ${msOf("timestamp")}, 0, '' FROM ${ch.table("clicks")}
        WHERE ${scopeWhere(s)} AND timestamp >= ${u}
    ) GROUP BY kind`,
    { ...scopeParams(s), ...markParams(ch, untilMs) },
  );
  const of = (kind: string) => rows.find((r) => r.kind === kind) ?? { kind, kh: [], kl: [], t: [], xh: [], xl: [], v: [] };
  const count = (kind: string) => String(of(kind).xl.reduce((a, b) => a + b, 0) + of(kind).xh.reduce((a, b) => a + b, 0) * 2 ** 32);
  // Per (link, visitor): its first conversion and first bundle from `until` on; per click key its first click.
  const firstOf = (r: { kh: number[]; kl: number[]; t: number[] }, extra?: (i: number) => (number | string)[]) => {
    const m = new Map<string, { hi: number; lo: number; t: number; more: (number | string)[] }>();
    r.kh.forEach((hi, i) => {
      const key = `${hi}:${r.kl[i]}`;
      const e = m.get(key);
      if (!e) m.set(key, { hi, lo: r.kl[i], t: r.t[i], more: extra?.(i) ?? [] });
      else e.t = Math.min(e.t, r.t[i]);
    });
    return [...m.values()];
  };
  const conv = of("converted");
  const open = firstOf(conv, (i) => [conv.xh[i], conv.xl[i], conv.v[i]]);
  const touches = firstOf(of("bundle"));
  const clicks = firstOf(of("click"));
  const spanning = String(of("bundle").xl.reduce((a, b) => a + b, 0));
  const mark = `${count("closed")}/${spanning}/${count("mutations")}/${count("clicks before")}`;
  return {
    mark,
    open: {
      hi: open.map((e) => e.hi),
      lo: open.map((e) => e.lo),
      converted: open.map((e) => e.t),
      clickHi: open.map((e) => e.more[0] as number),
      clickLo: open.map((e) => e.more[1] as number),
      clickIds: open.map((e) => e.more[2] as string),
    },
    touches: { hi: touches.map((e) => e.hi), lo: touches.map((e) => e.lo), at: touches.map((e) => e.t) },
    clicks: { hi: clicks.map((e) => e.hi), lo: clicks.map((e) => e.lo), at: clicks.map((e) => e.t) },
  };
}
