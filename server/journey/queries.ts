// ClickHouse queries of the journey reports, one function per report; every value is bound.
import type { Clickhouse } from "../storage/clickhouse/client";
import { countFunnelLevels } from "./funnel-query";
import { ENDED_IN_RANGE as SESSIONS, type LinkRange } from "./link-range";

export type { LinkRange };

// Raw events of the link in the period; the rollups (migration 0200) hold whole hours, and periods
// start on an hour, so both see the same window.
const BASE = "account_id = {account:UUID} AND link_id = {link:UUID} AND timestamp >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')";
const HOURLY = "account_id = {account:UUID} AND link_id = {link:UUID} AND hour >= toDateTime(intDiv({from:Int64}, 1000), 'UTC')";
// A period over the hourly and daily rollups (migrations 0206, 0208): its hours before its first
// midnight, then whole days.
const FIRST_HOURS = `${HOURLY} AND hour < toDateTime(intDiv({day:Int64}, 1000), 'UTC')`;
const WHOLE_DAYS = "account_id = {account:UUID} AND link_id = {link:UUID} AND day >= toDate(toDateTime(intDiv({day:Int64}, 1000), 'UTC'))";
/** Bundles (migration 0207) of the period's sessions: every session with an event in the period. */
const SESSION_BUNDLES = `${SESSIONS} AND sid != 0`;
const DAY_MS = 86_400_000;
const params = (r: LinkRange) => ({ account: r.accountId, link: r.linkId, from: r.fromMs, day: Math.ceil(r.fromMs / DAY_MS) * DAY_MS });

/** ClickHouse's DateTime64 text ("2024-01-02 03:04:05.678") as ISO 8601. */
export const chTimeToIso = (s: string) => `${s.replace(" ", "T")}Z`;
const finite = (v: unknown) => (Number.isFinite(Number(v)) ? Number(v) : 0);

/** Events and unique visitors of the period, from the visitor sketches (migrations 0203, 0208). */
async function countEventsAndVisitors(ch: Clickhouse, r: LinkRange) {
  const [row] = await ch.query<{ events: string; visitors: string }>(
    `
    SELECT sum(events) AS events, uniqCombinedMerge(14)(visitors_sketch) AS visitors FROM (
      SELECT events, visitors_sketch FROM ${ch.table("journey_visitors_hourly")} WHERE ${FIRST_HOURS}
      UNION ALL
      SELECT events, visitors_sketch FROM ${ch.table("journey_visitors_daily")} WHERE ${WHOLE_DAYS})`,
    params(r),
  );
  return { events: Number(row?.events ?? 0), visitors: Number(row?.visitors ?? 0) };
}

/** The ten most frequent page URLs (page views) and event names, in one pass over the rollups. */
async function topValues(ch: Clickhouse, r: LinkRange) {
  const rows = await ch.query<{ kind: string; value: string; n: string }>(
    `
    SELECT kind, value, sum(count) AS n FROM (
      SELECT kind, value, count FROM ${ch.table("journey_tops_hourly")} WHERE ${FIRST_HOURS}
      UNION ALL
      SELECT kind, value, count FROM ${ch.table("journey_tops_daily")} WHERE ${WHOLE_DAYS})
    GROUP BY kind, value ORDER BY n DESC, value LIMIT 10 BY kind`,
    params(r),
  );
  const of = (kind: string) => rows.filter((x) => x.kind === kind).map((x) => ({ value: x.value, count: Number(x.n) }));
  return { pages: of("page"), events: of("event") };
}

export async function getJourneySummary(ch: Clickhouse, r: LinkRange) {
  const totals = await countEventsAndVisitors(ch, r);
  // Sessions with an event in the period, each from its first event (or the period start, when it
  // began before) to its last. FINAL merges each session's rows across parts in key order, so the
  // count and the spans are exact; on merged parts it only reads them (the filter applies after it).
  const [sessions] = await ch.query<{ n: string; avg: number | null }>(
    `
    SELECT count() AS n, avgOrNull(toUnixTimestamp64Milli(ended) - greatest(toUnixTimestamp64Milli(started), {from:Int64})) / 1000 AS avg
    FROM ${ch.table("journey_sessions")} FINAL WHERE ${SESSIONS}`,
    params(r),
  );
  const { pages, events } = await topValues(ch, r);
  return {
    total_visitors: totals.visitors,
    total_sessions: Number(sessions?.n ?? 0),
    total_events: totals.events,
    avg_session_duration_seconds: Math.round(finite(sessions?.avg) * 100) / 100,
    top_pages: pages.map((x) => ({ url: x.value, count: x.count })),
    top_events: events.map((x) => ({ name: x.value, count: x.count })),
  };
}

export interface PageArgs {
  page: number;
  limit: number;
}

const SESSION_COLUMNS = `session_id, argMinMerge(visitor) AS first_visitor, min(started) AS s_started, max(ended) AS s_ended,
  sum(events) AS n_events, sum(page_views) AS n_views, sum(conversions) AS n_conversions,
  argMinMerge(entry_page) AS entry, argMaxMerge(exit_page) AS exit, max(device) AS dev, max(country) AS ctry`;
/** Pages deeper than this merge every session of the period (the general query). */
const NEWEST_SESSIONS_MAX = 500;

/**
 * The page of the newest sessions without merging every session of the period. The k session
 * bundles (migration 0207) with the latest ends give a bound b: a session that started
 * after b has all its rows ending after b, so ranking the sessions of the rows after b by their
 * first start finds it with its true start. A session with an older row left out ranks too high,
 * never too low, so when journey_sessions confirms the start of every session up to this page, the
 * page is exact; otherwise (a short period, sessions split around b) null sends the caller to the
 * general query.
 */
async function findNewestSessions(ch: Clickhouse, r: LinkRange, page: PageArgs) {
  const want = page.page * page.limit;
  if (want > NEWEST_SESSIONS_MAX) return null;
  const spans = ch.table("journey_event_bundles");
  const p = { ...params(r), k: want * 4, want };
  const [top] = await ch.query<{ bound: string; n: string }>(
    `
    SELECT toString(min(e)) AS bound, count() AS n FROM (
      SELECT toUnixTimestamp64Milli(ended) AS e FROM ${spans} WHERE ${SESSION_BUNDLES} ORDER BY ended DESC LIMIT {k:UInt32})`,
    p,
  );
  if (!top || Number(top.n) < p.k) return null;
  const after = "fromUnixTimestamp64Milli({bound:Int64}, 'UTC')";
  const ranked = await ch.query<{ session_id: string; s_started: string }>(
    `
    SELECT session_id, min(started) AS s_started FROM ${spans}
    WHERE account_id = {account:UUID} AND link_id = {link:UUID} AND ended > ${after} AND sid != 0
    GROUP BY session_id HAVING s_started > ${after}
    ORDER BY s_started DESC, session_id LIMIT {want:UInt32}`,
    { ...p, bound: Number(top.bound) },
  );
  if (ranked.length < want) return null;
  const rows = await ch.query<Record<string, string | number>>(
    `
    SELECT ${SESSION_COLUMNS} FROM ${ch.table("journey_sessions")}
    WHERE ${SESSIONS} AND session_id IN {ids:Array(String)} GROUP BY session_id`,
    { ...p, ids: ranked.map((x) => x.session_id) },
  );
  const byId = new Map(rows.map((x) => [String(x.session_id), x]));
  if (ranked.some((x) => String(byId.get(x.session_id)?.s_started) !== String(x.s_started))) return null;
  return ranked.slice(want - page.limit).map((x) => byId.get(x.session_id)!);
}

export async function listJourneySessions(ch: Clickhouse, r: LinkRange, page: PageArgs, visitorId?: string) {
  const t = ch.table("journey_sessions");
  const having = visitorId !== undefined ? "HAVING first_visitor = {visitor:String}" : "";
  const p = { ...params(r), visitor: visitorId ?? "", limit: page.limit, offset: (page.page - 1) * page.limit };
  const rows =
    (visitorId === undefined ? await findNewestSessions(ch, r, page) : null) ??
    (await ch.query<Record<string, string | number>>(
      `
    SELECT ${SESSION_COLUMNS} FROM ${t} WHERE ${SESSIONS}
    GROUP BY session_id ${having} ORDER BY s_started DESC, session_id
    LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
      p,
    ));
  // Sessions with a bundle ending in the period, counted on the bundles keyed by their end.
  const [count] =
    visitorId === undefined
      ? await ch.query<{ n: string }>(`SELECT uniqExact(sid) AS n FROM ${ch.table("journey_event_bundles")} WHERE ${SESSION_BUNDLES}`, p)
      : await ch.query<{ n: string }>(
          `
      SELECT count() AS n FROM (SELECT session_id, argMinMerge(visitor) AS first_visitor FROM ${t} WHERE ${SESSIONS} GROUP BY session_id ${having})`,
          p,
        );
  const items = rows.map((s) => {
    const started = chTimeToIso(String(s.s_started));
    const ended = chTimeToIso(String(s.s_ended));
    return {
      session_id: String(s.session_id),
      visitor_id: String(s.first_visitor),
      started_at: started,
      ended_at: ended,
      duration_seconds: (Date.parse(ended) - Date.parse(started)) / 1000,
      event_count: Number(s.n_events),
      page_views: Number(s.n_views),
      entry_page: String(s.entry),
      exit_page: String(s.exit),
      converted: Number(s.n_conversions) > 0,
      device_type: s.dev ? String(s.dev) : null,
      country_code: s.ctry ? String(s.ctry) : null,
    };
  });
  return { items, total: Number(count.n) };
}

const OPTIONAL_TEXT = [
  "session_id",
  "event_name",
  "page_title",
  "conversion_name",
  "currency",
  "country_code",
  "city",
  "region",
  "device_type",
  "browser",
  "browser_version",
  "os",
  "os_version",
] as const;

export async function listJourneyEvents(ch: Clickhouse, r: LinkRange, page: PageArgs, eventType?: string) {
  const t = ch.table("journey_events");
  const where = `${BASE}${eventType !== undefined ? " AND event_type = {type:String}" : ""}`;
  const p = { ...params(r), type: eventType ?? "", limit: page.limit, offset: (page.page - 1) * page.limit };
  const rows = await ch.query<Record<string, unknown>>(
    `
    SELECT event_id AS id, link_id, visitor_id, event_type, page_url, scroll_percent, time_on_page, timestamp,
      if(has_revenue, revenue_cents, NULL) AS revenue_cents, properties, ${OPTIONAL_TEXT.join(", ")}
    FROM ${t} WHERE ${where}
    ORDER BY timestamp DESC, event_id LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
    p,
  );
  const [count] = await ch.query<{ n: string }>(`SELECT count() AS n FROM ${t} WHERE ${where}`, p);
  const items = rows.map((e) => {
    const item: Record<string, unknown> = {
      id: e.id,
      link_id: e.link_id,
      visitor_id: e.visitor_id,
      event_type: e.event_type,
      page_url: e.page_url,
      scroll_percent: e.scroll_percent,
      time_on_page: e.time_on_page,
      timestamp: chTimeToIso(String(e.timestamp)),
      revenue_cents: e.revenue_cents === null ? null : Number(e.revenue_cents),
      properties: JSON.parse(String(e.properties || "{}")),
    };
    for (const k of OPTIONAL_TEXT) item[k] = e[k] === "" ? null : e[k];
    return item;
  });
  return { items, total: Number(count.n) };
}

/**
 * Visitors reaching each step in order within the period, as ClickHouse windowFunnel in strict_order
 * mode counts them over only the events that match some step (funnel-query.ts), so unrelated events
 * (scrolls, timers) between two steps do not break a chain but a later step done before an earlier
 * one does. A step matches an event's event_name, its event_type, or the page_url of a page_view.
 * totalVisitors is exact: every visitor with an event in the period, counted by the same query.
 */
export async function getJourneyFunnel(ch: Clickhouse, r: LinkRange, steps: string[], windowSeconds: number) {
  const byLevel = await countFunnelLevels(ch, r, steps, windowSeconds * 1000);
  const reached = steps.map((_, i) => byLevel.slice(i + 1).reduce((a, b) => a + b, 0));
  return { reached, totalVisitors: byLevel.reduce((a, b) => a + b, 0) };
}
