// Visitor and converter counts of the journey and conversion reports, one rule for every report that
// asks (docs/accuracy.md): exact, from the event bundles (migration 0207: a row per insert batch, UTC
// day, session and visitor, keyed by time), as distinct cityHash64(visitor_id) — the funnel counts its
// visitors from the same rows the same way, so every report gives the same number. The time grows with
// the bundles of the period (the cost is measured in docs/accuracy.md); the rollups' sketches, which
// were read instead beyond 100,000 visitors, were up to 2.4% off.
import type { Clickhouse } from "../storage/clickhouse/client";
import { countWithClosedDays, WHOLE_ACCOUNT } from "./closed-days-query";
import { indexedFigures } from "./summary-index";
import type { Beside } from "./summary-index-query";

/** An account's journey events since `fromMs` (a whole hour), optionally of some links only. */
export interface VisitorScope {
  accountId: string;
  fromMs: number;
  /** A compared past window's end (exclusive, a whole hour); none: up to now and beyond. */
  toMs?: number;
  linkIds?: string[];
}
export interface VisitorCounts {
  visitors: number;
  converters: number;
}

const scopeParams = (s: VisitorScope) => ({ account: s.accountId, from: s.fromMs, to: s.toMs ?? 0, links: s.linkIds ?? [] });
const linksOf = (s: VisitorScope) => (s.linkIds ? " AND link_id IN {links:Array(UUID)}" : "");
/** A bundle's conversions in the period (type 5 in migration 0207's codes). */
const converted = (s: VisitorScope) =>
  `arrayExists((o, ty) -> ty = 5 AND toUnixTimestamp64Milli(started) + o >= {from:Int64}${s.toMs === undefined ? "" : " AND toUnixTimestamp64Milli(started) + o < {to:Int64}"}, times, types)`;

/** Bundles with an event in the period: their last one at or after its start, and, with an end, one before it. */
const bundlesOf = (ch: Clickhouse, s: VisitorScope) =>
  `${ch.table("journey_event_bundles")} WHERE account_id = {account:UUID}${linksOf(s)} AND ended >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')${
    s.toMs === undefined
      ? ""
      : " AND started < fromUnixTimestamp64Milli({to:Int64}, 'UTC') AND arrayExists(o -> toUnixTimestamp64Milli(started) + o >= {from:Int64} AND toUnixTimestamp64Milli(started) + o < {to:Int64}, times)"
  }`;

/**
 * Distinct visitors with an event in scope and (with `converters`) those of them who converted. A link's
 * or a whole account's are counted with the closed days' counts (closed-days-query.ts), which give the
 * same numbers; other sets of links, periods that start today and windows with an end (a compared past
 * window: the closed days' counts run to now), from the bundles.
 */
export async function countJourneyVisitors(ch: Clickhouse, s: VisitorScope, converters = true): Promise<VisitorCounts> {
  const scope = s.toMs !== undefined ? null : !s.linkIds ? WHOLE_ACCOUNT : s.linkIds.length === 1 ? s.linkIds[0] : null;
  if (scope) {
    const counts = await countWithClosedDays(ch, { accountId: s.accountId, scope, fromMs: s.fromMs }, converters);
    if (counts) return counts;
  }
  return countFromBundles(ch, s, converters);
}

/**
 * The same for a summary: a link's or a whole account's from the summaries' in-memory index
 * (summary-index.ts) when it can answer, otherwise as countJourneyVisitors counts. `beside`: columns the
 * caller wants read in the index's statement (their values come back only when the index answered).
 */
export async function countSummaryVisitors(
  ch: Clickhouse,
  s: VisitorScope,
  converters = true,
  beside?: Beside,
): Promise<VisitorCounts & { beside?: Record<string, unknown> }> {
  const scope = s.toMs !== undefined ? null : !s.linkIds ? WHOLE_ACCOUNT : s.linkIds.length === 1 ? s.linkIds[0] : null;
  if (scope) {
    const f = await indexedFigures(ch, { accountId: s.accountId, scope }, s.fromMs, { converters, beside: beside && (() => beside) });
    if (f) return { visitors: f.visitors, converters: f.converters, ...(beside ? { beside: f.beside } : {}) };
  }
  return countJourneyVisitors(ch, s, converters);
}

/** The same from every bundle of the period. */
export async function countFromBundles(ch: Clickhouse, s: VisitorScope, converters = true): Promise<VisitorCounts> {
  const [row] = await ch.query<{ v: string; c: string }>(
    `SELECT uniqExact(vh) AS v, ${converters ? `uniqExactIf(vh, ${converted(s)})` : "0"} AS c FROM ${bundlesOf(ch, s)}`,
    scopeParams(s),
  );
  return { visitors: Number(row?.v ?? 0), converters: Number(row?.c ?? 0) };
}

/** The same per link of the scope (links without events in the period are absent). */
export async function countJourneyVisitorsByLink(ch: Clickhouse, s: VisitorScope): Promise<Map<string, VisitorCounts>> {
  const rows = await ch.query<{ link: string; v: string; c: string }>(
    `SELECT toString(link_id) AS link, uniqExact(vh) AS v, uniqExactIf(vh, ${converted(s)}) AS c FROM ${bundlesOf(ch, s)} GROUP BY link`,
    scopeParams(s),
  );
  return new Map(rows.map((r) => [r.link, { visitors: Number(r.v), converters: Number(r.c) }]));
}
