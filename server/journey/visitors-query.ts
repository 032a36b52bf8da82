// Visitor and converter counts of the journey and conversion reports, one rule for every report that
// asks (docs/accuracy.md): the rollups' states estimate the set (visitors: the uniqCombined(14) sketches
// of migrations 0203 and 0208, a period's hours before its first midnight and whole days after;
// converters: the `uniq` states of migration 0200); when the estimate is EXACT_UP_TO or fewer, the
// event bundles (migration 0207) count the set exactly by cityHash64(visitor_id), at a cost that grows
// with it, so a report that counts exactly anyway (the funnel) gives the same number.
import type { Clickhouse } from "../storage/clickhouse/client";

/** Sets up to this size are counted exactly (the time grows with the set; docs/accuracy.md). */
export const EXACT_UP_TO = 100_000;

/** An account's journey events since `fromMs` (a whole hour), optionally of some links only. */
export interface VisitorScope {
  accountId: string;
  fromMs: number;
  linkIds?: string[];
}
export interface VisitorCounts {
  visitors: number;
  converters: number;
}

const DAY_MS = 86_400_000;
const scopeParams = (s: VisitorScope) => ({
  account: s.accountId,
  from: s.fromMs,
  day: Math.ceil(s.fromMs / DAY_MS) * DAY_MS,
  links: s.linkIds ?? [],
});
const linksOf = (s: VisitorScope) => (s.linkIds ? " AND link_id IN {links:Array(UUID)}" : "");
/** A bundle's conversions in the period (type 5 in migration 0207's codes). */
const CONVERTED = "arrayExists((o, ty) -> ty = 5 AND toUnixTimestamp64Milli(started) + o >= {from:Int64}, times, types)";

/** Visitors' states of the period, per link: its hours before its first midnight, then whole days. */
function visitorSketches(ch: Clickhouse, s: VisitorScope) {
  const scope = `account_id = {account:UUID}${linksOf(s)}`;
  return `
    SELECT link_id, visitors_sketch FROM ${ch.table("journey_visitors_hourly")}
    WHERE ${scope} AND hour >= toDateTime(intDiv({from:Int64}, 1000), 'UTC') AND hour < toDateTime(intDiv({day:Int64}, 1000), 'UTC')
    UNION ALL
    SELECT link_id, visitors_sketch FROM ${ch.table("journey_visitors_daily")}
    WHERE ${scope} AND day >= toDate(toDateTime(intDiv({day:Int64}, 1000), 'UTC'))`;
}

/** Converters' states of the period's hours, per link. */
const converterStates = (ch: Clickhouse, s: VisitorScope) =>
  `SELECT link_id, converters FROM ${ch.table("journey_hourly")}
  WHERE account_id = {account:UUID}${linksOf(s)} AND hour >= toDateTime(intDiv({from:Int64}, 1000), 'UTC')`;

const bundlesOf = (ch: Clickhouse, s: VisitorScope) =>
  `${ch.table("journey_event_bundles")} WHERE account_id = {account:UUID}${linksOf(s)} AND ended >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')`;

/** The rule: an estimate above EXACT_UP_TO stands; otherwise the exact count. */
export const chooseCount = (estimate: number, exact: () => number) => (estimate > EXACT_UP_TO ? estimate : exact());

/** The estimates; without `converters` only the visitors' (converters 0). */
export async function estimateJourneyVisitors(ch: Clickhouse, s: VisitorScope, converters = true): Promise<VisitorCounts> {
  const [v] = await ch.query<{ n: string }>(
    `SELECT uniqCombinedMerge(14)(visitors_sketch) AS n FROM (${visitorSketches(ch, s)})`,
    scopeParams(s),
  );
  const [c] = converters
    ? await ch.query<{ n: string }>(`SELECT uniqMerge(converters) AS n FROM (${converterStates(ch, s)})`, scopeParams(s))
    : [{ n: "0" }];
  return { visitors: Number(v?.n ?? 0), converters: Number(c?.n ?? 0) };
}

/** Distinct visitors with an event in scope and (with `converters`) those of them who converted, by the rule. */
export async function countJourneyVisitors(ch: Clickhouse, s: VisitorScope, converters = true): Promise<VisitorCounts> {
  const estimate = await estimateJourneyVisitors(ch, s, converters);
  if (estimate.visitors > EXACT_UP_TO && (!converters || estimate.converters > EXACT_UP_TO)) return estimate;
  const [exact] = await ch.query<{ v: string; c: string }>(
    `SELECT uniqExact(vh) AS v, ${converters ? `uniqExactIf(vh, ${CONVERTED})` : "0"} AS c FROM ${bundlesOf(ch, s)}`,
    scopeParams(s),
  );
  return {
    visitors: chooseCount(estimate.visitors, () => Number(exact.v)),
    converters: chooseCount(estimate.converters, () => Number(exact.c)),
  };
}

/** The rule per link of the scope (links without events in the period are absent). */
export async function countJourneyVisitorsByLink(ch: Clickhouse, s: VisitorScope): Promise<Map<string, VisitorCounts>> {
  const estimates = await ch.query<{ link: string; v: string; c: string }>(
    `SELECT link, max(v) AS v, max(c) AS c FROM (
      SELECT toString(link_id) AS link, uniqCombinedMerge(14)(visitors_sketch) AS v, 0 AS c FROM (${visitorSketches(ch, s)}) GROUP BY link
      UNION ALL
      SELECT toString(link_id) AS link, 0 AS v, uniqMerge(converters) AS c FROM (${converterStates(ch, s)}) GROUP BY link)
    GROUP BY link`,
    scopeParams(s),
  );
  const small = estimates.filter((e) => Number(e.v) <= EXACT_UP_TO || Number(e.c) <= EXACT_UP_TO).map((e) => e.link);
  const exact = new Map<string, { v: string; c: string }>();
  if (small.length > 0) {
    const rows = await ch.query<{ link: string; v: string; c: string }>(
      `SELECT toString(link_id) AS link, uniqExact(vh) AS v, uniqExactIf(vh, ${CONVERTED}) AS c
      FROM ${bundlesOf(ch, { ...s, linkIds: small })} GROUP BY link`,
      scopeParams({ ...s, linkIds: small }),
    );
    for (const r of rows) exact.set(r.link, r);
  }
  return new Map(
    estimates.map((e) => [
      e.link,
      {
        visitors: chooseCount(Number(e.v), () => Number(exact.get(e.link)?.v ?? 0)),
        converters: chooseCount(Number(e.c), () => Number(exact.get(e.link)?.c ?? 0)),
      },
    ]),
  );
}
