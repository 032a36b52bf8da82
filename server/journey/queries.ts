// ClickHouse queries of the journey reports, one function per report; every value is bound.
import type { Clickhouse } from "../storage/clickhouse/client";
import { chTimeToIso } from "../storage/clickhouse/format";
import { countFunnelLevels } from "./funnel-query";
import type { LinkRange, PageArgs } from "./link-range";
import { countJourneyVisitors } from "./visitors-query";

export type { LinkRange };

// Raw events of the link in the period; the rollups (migration 0200) hold whole hours, and periods
// start on an hour, so both see the same window.
const BASE = "account_id = {account:UUID} AND link_id = {link:UUID} AND timestamp >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')";
const HOURLY = "account_id = {account:UUID} AND link_id = {link:UUID} AND hour >= toDateTime(intDiv({from:Int64}, 1000), 'UTC')";
// A period over the hourly and daily rollups (migrations 0206, 0208): its hours before its first
// midnight, then whole days.
const FIRST_HOURS = `${HOURLY} AND hour < toDateTime(intDiv({day:Int64}, 1000), 'UTC')`;
const WHOLE_DAYS = "account_id = {account:UUID} AND link_id = {link:UUID} AND day >= toDate(toDateTime(intDiv({day:Int64}, 1000), 'UTC'))";
const DAY_MS = 86_400_000;
const params = (r: LinkRange) => ({ account: r.accountId, link: r.linkId, from: r.fromMs, day: Math.ceil(r.fromMs / DAY_MS) * DAY_MS });

const finite = (v: unknown) => (Number.isFinite(Number(v)) ? Number(v) : 0);

/** Events of the period, from the hourly and daily counts (migration 0208). */
const eventsOf = (ch: Clickhouse) => `
  SELECT sum(events) FROM (
    SELECT events FROM ${ch.table("journey_visitors_hourly")} WHERE ${FIRST_HOURS}
    UNION ALL
    SELECT events FROM ${ch.table("journey_visitors_daily")} WHERE ${WHOLE_DAYS})`;

/** The ten most frequent page URLs (page views) and event names, in one pass over the rollups, most first. */
const topsOf = (ch: Clickhouse) => `
  SELECT groupArray((kind, value, n)) FROM (
    SELECT kind, value, sum(count) AS n FROM (
      SELECT kind, value, count FROM ${ch.table("journey_tops_hourly")} WHERE ${FIRST_HOURS}
      UNION ALL
      SELECT kind, value, count FROM ${ch.table("journey_tops_daily")} WHERE ${WHOLE_DAYS})
    GROUP BY kind, value ORDER BY n DESC, value LIMIT 10 BY kind)`;

/**
 * Sessions with an event in the period, each from its first event (or the period start, when it began
 * before) to its last. FINAL merges each session's rows across parts in key order before the filter
 * applies, so the count and the spans are those of fully merged data.
 */
const sessionsOf = (ch: Clickhouse) => `
  SELECT (count(), avgOrNull(toUnixTimestamp64Milli(ended) - greatest(toUnixTimestamp64Milli(started), {from:Int64})) / 1000)
  FROM ${ch.table("journey_sessions_v2")} FINAL
  WHERE account_id = {account:UUID} AND link_id = {link:UUID} AND ended >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')`;

export async function getJourneySummary(ch: Clickhouse, r: LinkRange) {
  // Two round trips, sent together: the visitors (closed-days-query.ts, which may need a second read of
  // the bundles), and the events, sessions and tops in one statement.
  const [{ visitors }, [row]] = await Promise.all([
    countJourneyVisitors(ch, { accountId: r.accountId, fromMs: r.fromMs, linkIds: [r.linkId] }, false),
    ch.query<{ events: string; sessions: [string, number | null]; tops: [string, string, string][] }>(
      `SELECT (${eventsOf(ch)}) AS events, (${sessionsOf(ch)}) AS sessions, (${topsOf(ch)}) AS tops`,
      params(r),
    ),
  ]);
  const tops = row?.tops ?? [];
  const of = (kind: string) => tops.filter(([k]) => k === kind).map(([, value, n]) => ({ value, count: Number(n) }));
  return {
    total_visitors: visitors,
    total_sessions: Number(row?.sessions?.[0] ?? 0),
    total_events: Number(row?.events ?? 0),
    avg_session_duration_seconds: Math.round(finite(row?.sessions?.[1]) * 100) / 100,
    top_pages: of("page").map((x) => ({ url: x.value, count: x.count })),
    top_events: of("event").map((x) => ({ name: x.value, count: x.count })),
  };
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

export async function listJourneyEvents(
  ch: Clickhouse,
  r: LinkRange,
  page: PageArgs,
  filter: { eventType?: string; sessionId?: string } = {},
) {
  const t = ch.table("journey_events");
  const where =
    BASE +
    (filter.eventType !== undefined ? " AND event_type = {type:String}" : "") +
    (filter.sessionId !== undefined ? " AND session_id = {session:String}" : "");
  const p = {
    ...params(r),
    type: filter.eventType ?? "",
    session: filter.sessionId ?? "",
    limit: page.limit,
    offset: (page.page - 1) * page.limit,
  };
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
 * totalVisitors: every visitor with an event in the period, exact, as every journey visitor count is.
 */
export async function getJourneyFunnel(ch: Clickhouse, r: LinkRange, steps: string[], windowSeconds: number) {
  const byLevel = await countFunnelLevels(ch, r, steps, windowSeconds * 1000);
  const reached = steps.map((_, i) => byLevel.slice(i + 1).reduce((a, b) => a + b, 0));
  // Every visitor of the period is at some level (0: no step 1), counted exactly as the summary counts them.
  return { reached, totalVisitors: byLevel.reduce((a, b) => a + b, 0) };
}
