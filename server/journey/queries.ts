// ClickHouse queries of the journey reports, one function per report; every value is bound.
import type { Clickhouse } from "../storage/clickhouse/client";

export interface LinkRange { accountId: string; linkId: string; fromMs: number }

const BASE = "account_id = {account:UUID} AND link_id = {link:UUID} AND timestamp >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')";
const params = (r: LinkRange) => ({ account: r.accountId, link: r.linkId, from: r.fromMs });

/** ClickHouse's DateTime64 text ("2024-01-02 03:04:05.678") as ISO 8601. */
export const chTimeToIso = (s: string) => `${s.replace(" ", "T")}Z`;
const finite = (v: unknown) => (Number.isFinite(Number(v)) ? Number(v) : 0);

export async function getJourneySummary(ch: Clickhouse, r: LinkRange) {
  const t = ch.table("journey_events");
  const p = params(r);
  const [totals] = await ch.query<Record<string, string>>(`
    SELECT uniqExact(visitor_id) AS visitors, uniqExactIf(session_id, session_id != '') AS sessions, count() AS events
    FROM ${t} WHERE ${BASE}`, p);
  const [duration] = await ch.query<{ avg: number | null }>(`
    SELECT avgOrNull(d) AS avg FROM (
      SELECT (toUnixTimestamp64Milli(max(timestamp)) - toUnixTimestamp64Milli(min(timestamp))) / 1000 AS d
      FROM ${t} WHERE ${BASE} AND session_id != '' GROUP BY session_id)`, p);
  const pages = await ch.query<{ url: string; count: string }>(`
    SELECT page_url AS url, count() AS count FROM ${t} WHERE ${BASE} AND event_type = 'page_view'
    GROUP BY url ORDER BY count DESC, url LIMIT 10`, p);
  const events = await ch.query<{ name: string; count: string }>(`
    SELECT event_name AS name, count() AS count FROM ${t} WHERE ${BASE} AND event_name != ''
    GROUP BY name ORDER BY count DESC, name LIMIT 10`, p);
  return {
    total_visitors: Number(totals.visitors),
    total_sessions: Number(totals.sessions),
    total_events: Number(totals.events),
    avg_session_duration_seconds: Math.round(finite(duration?.avg) * 100) / 100,
    top_pages: pages.map((x) => ({ url: x.url, count: Number(x.count) })),
    top_events: events.map((x) => ({ name: x.name, count: Number(x.count) })),
  };
}

export interface PageArgs { page: number; limit: number }

export async function listJourneySessions(ch: Clickhouse, r: LinkRange, page: PageArgs, visitorId?: string) {
  const t = ch.table("journey_events");
  const where = `${BASE} AND session_id != ''${visitorId !== undefined ? " AND visitor_id = {visitor:String}" : ""}`;
  const p = { ...params(r), visitor: visitorId ?? "", limit: page.limit, offset: (page.page - 1) * page.limit };
  const rows = await ch.query<Record<string, string | number>>(`
    SELECT session_id, argMin(visitor_id, timestamp) AS first_visitor,
      min(timestamp) AS started_at, max(timestamp) AS ended_at, count() AS event_count,
      countIf(event_type = 'page_view') AS page_views,
      argMin(page_url, timestamp) AS entry_page, argMax(page_url, timestamp) AS exit_page,
      countIf(event_type = 'conversion') > 0 AS converted,
      anyIf(device_type, device_type != '') AS device, anyIf(country_code, country_code != '') AS country
    FROM ${t} WHERE ${where}
    GROUP BY session_id ORDER BY started_at DESC, session_id
    LIMIT {limit:UInt32} OFFSET {offset:UInt32}`, p);
  const [count] = await ch.query<{ n: string }>(`SELECT uniqExact(session_id) AS n FROM ${t} WHERE ${where}`, p);
  const items = rows.map((s) => {
    const started = chTimeToIso(String(s.started_at));
    const ended = chTimeToIso(String(s.ended_at));
    return {
      session_id: String(s.session_id),
      visitor_id: String(s.first_visitor),
      started_at: started,
      ended_at: ended,
      duration_seconds: (Date.parse(ended) - Date.parse(started)) / 1000,
      event_count: Number(s.event_count),
      page_views: Number(s.page_views),
      entry_page: String(s.entry_page),
      exit_page: String(s.exit_page),
      converted: Boolean(Number(s.converted)),
      device_type: s.device ? String(s.device) : null,
      country_code: s.country ? String(s.country) : null,
    };
  });
  return { items, total: Number(count.n) };
}

const OPTIONAL_TEXT = [
  "session_id", "event_name", "page_title", "conversion_name", "currency", "country_code", "city", "region",
  "device_type", "browser", "browser_version", "os", "os_version",
] as const;

export async function listJourneyEvents(ch: Clickhouse, r: LinkRange, page: PageArgs, eventType?: string) {
  const t = ch.table("journey_events");
  const where = `${BASE}${eventType !== undefined ? " AND event_type = {type:String}" : ""}`;
  const p = { ...params(r), type: eventType ?? "", limit: page.limit, offset: (page.page - 1) * page.limit };
  const rows = await ch.query<Record<string, unknown>>(`
    SELECT event_id AS id, link_id, visitor_id, event_type, page_url, scroll_percent, time_on_page, timestamp,
      revenue_cents, properties, ${OPTIONAL_TEXT.join(", ")}
    FROM ${t} WHERE ${where}
    ORDER BY timestamp DESC, event_id LIMIT {limit:UInt32} OFFSET {offset:UInt32}`, p);
  const [count] = await ch.query<{ n: string }>(`SELECT count() AS n FROM ${t} WHERE ${where}`, p);
  const items = rows.map((e) => {
    const item: Record<string, unknown> = {
      id: e.id, link_id: e.link_id, visitor_id: e.visitor_id, event_type: e.event_type, page_url: e.page_url,
      scroll_percent: e.scroll_percent, time_on_page: e.time_on_page, timestamp: chTimeToIso(String(e.timestamp)),
      revenue_cents: e.event_type === "conversion" || Number(e.revenue_cents) ? Number(e.revenue_cents) : null,
      properties: JSON.parse(String(e.properties || "{}")),
    };
    for (const k of OPTIONAL_TEXT) item[k] = e[k] === "" ? null : e[k];
    return item;
  });
  return { items, total: Number(count.n) };
}

/**
 * Visitors reaching each step in order within the period: ClickHouse windowFunnel in strict_order
 * mode over only the rows that match some step, so unrelated events (scrolls, timers) between two
 * steps do not break a chain but a later step done before an earlier one does. A step matches an
 * event's event_name, its event_type, or the page_url of a page_view.
 */
export async function getJourneyFunnel(ch: Clickhouse, r: LinkRange, steps: string[], windowSeconds: number) {
  const t = ch.table("journey_events");
  const p: Record<string, unknown> = { ...params(r), window: windowSeconds * 1000 };
  const conditions = steps.map((step, i) => {
    p[`s${i}`] = step;
    return `(event_name = {s${i}:String} OR event_type = {s${i}:String} OR (event_type = 'page_view' AND page_url = {s${i}:String}))`;
  });
  const levels = await ch.query<{ level: number; n: string }>(`
    SELECT level, count() AS n FROM (
      SELECT windowFunnel({window:UInt64}, 'strict_order')(toUInt64(toUnixTimestamp64Milli(timestamp)), ${conditions.join(", ")}) AS level
      FROM ${t} WHERE ${BASE} AND (${conditions.join(" OR ")})
      GROUP BY visitor_id) GROUP BY level`, p);
  const [total] = await ch.query<{ n: string }>(`SELECT uniqExact(visitor_id) AS n FROM ${t} WHERE ${BASE}`, p);
  const reached = steps.map(() => 0);
  for (const { level, n } of levels) for (let i = 0; i < Number(level); i++) reached[i] += Number(n);
  return { reached, totalVisitors: Number(total.n) };
}
