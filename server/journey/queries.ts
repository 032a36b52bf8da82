// ClickHouse queries of the journey reports, one function per report; every value is bound.
import type { Clickhouse } from "../storage/clickhouse/client";
import { chTimeToIso } from "../storage/clickhouse/format";
import { countFunnelLevels } from "./funnel-query";
import type { LinkRange, PageArgs } from "./link-range";
import { countJourneyVisitors } from "./visitors-query";
import { indexedFigures } from "./summary-index";
import { SMALL_READS } from "./summary-index-query";
import { topOfSum, type ValueCounts } from "./top-values";
import { DAY_MS } from "../reports/period";
import { importedDaysSql } from "../imports/read";

export type { LinkRange };

// Raw events of the link in the period; the rollups (migration 0200) hold whole hours, and periods
// start on an hour, so both see the same window.
const BASE = "account_id = {account:UUID} AND link_id = {link:UUID} AND timestamp >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')";
const HOURLY = "account_id = {account:UUID} AND link_id = {link:UUID} AND hour >= toDateTime(intDiv({from:Int64}, 1000), 'UTC')";
// A period over the hourly and daily rollups (migrations 0206, 0208): its hours before its first
// midnight, then whole days.
const FIRST_HOURS = `${HOURLY} AND hour < toDateTime(intDiv({day:Int64}, 1000), 'UTC')`;
const WHOLE_DAYS = "account_id = {account:UUID} AND link_id = {link:UUID} AND day >= toDate(toDateTime(intDiv({day:Int64}, 1000), 'UTC'))";
// A compared past window (with an end, a whole hour) reads the hourly rollups alone, up to its end.
const HOURS_TO_END = `${HOURLY} AND hour < toDateTime(intDiv({to:Int64}, 1000), 'UTC')`;
const params = (r: LinkRange) => ({
  account: r.accountId,
  link: r.linkId,
  from: r.fromMs,
  to: r.toMs ?? 0,
  day: Math.ceil(r.fromMs / DAY_MS) * DAY_MS,
});
/** The hourly and daily rollups of a period, or the hourly ones of a window with an end. */
const rollups = (r: LinkRange, columns: string, hourly: string, daily: string) =>
  r.toMs === undefined
    ? `SELECT ${columns} FROM ${hourly} WHERE ${FIRST_HOURS} UNION ALL SELECT ${columns} FROM ${daily} WHERE ${WHOLE_DAYS}`
    : `SELECT ${columns} FROM ${hourly} WHERE ${HOURS_TO_END}`;

const finite = (v: unknown) => (Number.isFinite(Number(v)) ? Number(v) : 0);

/** Events of the period, from the hourly and daily counts (migration 0208). */
async function countEvents(ch: Clickhouse, r: LinkRange) {
  const [row] = await ch.query<{ events: string }>(
    `
    SELECT sum(events) AS events FROM (${rollups(r, "events", ch.table("journey_visitors_hourly"), ch.table("journey_visitors_daily"))})`,
    params(r),
  );
  return Number(row?.events ?? 0);
}

/** The ten most frequent page URLs (page views) and event names, in one pass over the rollups. */
async function topValues(ch: Clickhouse, r: LinkRange) {
  const rows = await ch.query<{ kind: string; value: string; n: string }>(
    `
    SELECT kind, value, sum(count) AS n FROM (${rollups(r, "kind, value, count", ch.table("journey_tops_hourly"), ch.table("journey_tops_daily"))})
    GROUP BY kind, value ORDER BY n DESC, value LIMIT 10 BY kind`,
    params(r),
  );
  const of = (kind: string) => rows.filter((x) => x.kind === kind).map((x) => ({ value: x.value, count: Number(x.n) }));
  return { pages: of("page"), events: of("event") };
}

/**
 * Every page URL's and event name's count of the period by kind (the top values' input), and its events,
 * as SQL (the open hours' events are counted from the open bundles, summary-index-query.ts); `hourlyOnly`: from the hourly rollups alone (they hold every hour: cheaper for a few hours).
 */
const valueCountsSql = (ch: Clickhouse, r: LinkRange, hourlyOnly = false) =>
  `SELECT kind, value, sum(count) AS n FROM (${
    hourlyOnly
      ? `SELECT kind, value, count FROM ${ch.table("journey_tops_hourly")} WHERE ${HOURLY}`
      : rollups(r, "kind, value, count", ch.table("journey_tops_hourly"), ch.table("journey_tops_daily"))
  }) GROUP BY kind, value`;
const eventsSql = (ch: Clickhouse, r: LinkRange) =>
  `SELECT sum(events) FROM (${rollups(r, "events", ch.table("journey_visitors_hourly"), ch.table("journey_visitors_daily"))})`;

function toValueCounts(rows: [string, string, string | number][]): ValueCounts {
  const out: ValueCounts = { page: new Map(), event: new Map() };
  for (const [kind, value, n] of rows) out[kind as "page" | "event"]?.set(value, Number(n));
  return out;
}

/** Above this many distinct pages and event names, a period's closed counts are read on each call, not kept. */
const MEMO_MAX_VALUES = 100_000;

/** The closed hours' events and value counts of a period, [fromMs, toMs). */
async function closedRollups(ch: Clickhouse, r: LinkRange) {
  const [row] = await ch.query<{ events: string; tops: [string, string, string][] }>(
    `SELECT (${eventsSql(ch, r)}) AS events, (SELECT groupArray((kind, value, n)) FROM (${valueCountsSql(ch, r)})) AS tops`,
    params(r),
  );
  return { events: Number(row?.events ?? 0), values: toValueCounts(row?.tops ?? []) };
}

/**
 * The summary from the in-memory index (summary-index.ts) and the rollups: the closed hours' events and
 * value counts are read once per period start and index, the open part's on each call in the statement
 * that reads the open bundles; null when the index cannot answer (the exact queries do).
 */
async function indexedSummary(ch: Clickhouse, r: LinkRange) {
  // The link's imported days (imports/read.ts) are read in the same statement: the summary shows them beside.
  const figures = await indexedFigures(ch, { accountId: r.accountId, scope: r.linkId }, r.fromMs, {
    converters: false,
    openEvents: true,
    beside: (untilMs) => {
      const open = { ...r, fromMs: untilMs };
      return {
        columns: [
          `(SELECT groupArray((kind, value, n)) FROM (${valueCountsSql(ch, open, true)})) AS open_tops`,
          `(${importedDaysSql(ch)}) AS imported_days`,
        ],
        params: params(open),
      };
    },
  });
  if (!figures) return null;
  const key = `summary/${r.fromMs}`;
  let closed = figures.memo.get(key) as ReturnType<typeof closedRollups> | undefined;
  if (!closed) {
    closed = closedRollups(ch, { ...r, toMs: figures.untilMs });
    closed.catch(() => figures.memo.delete(key));
    figures.memo.set(key, closed);
  }
  // A failed read (a time limit on a link of very many distinct pages) leaves the exact queries to answer.
  const c = await closed.catch(() => null);
  if (!c) return null;
  // Kept only while small: the counts of every page and event name of the period.
  if (c.values.page.size + c.values.event.size > MEMO_MAX_VALUES) figures.memo.delete(key);
  const open = toValueCounts((figures.beside.open_tops ?? []) as [string, string, string][]);
  const summary = {
    total_visitors: figures.visitors,
    total_sessions: figures.sessions,
    total_events: c.events + figures.openEvents,
    avg_session_duration_seconds: Math.round(finite(figures.avgSessionSeconds) * 100) / 100,
    top_pages: topOfSum(c.values.page, open.page).map((x) => ({ url: x.value, count: x.count })),
    top_events: topOfSum(c.values.event, open.event).map((x) => ({ name: x.value, count: x.count })),
  };
  return { summary, importedDays: Number(figures.beside.imported_days ?? 0) };
}

/**
 * The summary, and the link's number of imported days when it was read beside it (the indexed
 * summary reads it in its statement; undefined otherwise).
 */
export async function getJourneySummaryAndImports(ch: Clickhouse, r: LinkRange) {
  if (r.toMs === undefined) {
    const indexed = await indexedSummary(ch, r);
    if (indexed) return indexed;
  }
  return { summary: await exactSummary(ch, r), importedDays: undefined };
}

export async function getJourneySummary(ch: Clickhouse, r: LinkRange) {
  return (await getJourneySummaryAndImports(ch, r)).summary;
}

async function exactSummary(ch: Clickhouse, r: LinkRange) {
  // Four independent reads, sent together: a ClickHouse server runs them at once.
  const [events, { visitors }, [sessions], tops] = await Promise.all([
    countEvents(ch, r),
    countJourneyVisitors(ch, { accountId: r.accountId, fromMs: r.fromMs, toMs: r.toMs, linkIds: [r.linkId] }, false),
    // Sessions with an event in the period, each from its first event (or the period start, when it
    // began before) to its last. FINAL merges each session's rows across parts in key order before the
    // filter applies, so the count and the spans are those of fully merged data.
    ch.query<{ n: string; avg: number | null }>(
      `
    SELECT count() AS n,
      avgOrNull(${r.toMs === undefined ? "toUnixTimestamp64Milli(ended)" : "least(toUnixTimestamp64Milli(ended), {to:Int64})"} - greatest(toUnixTimestamp64Milli(started), {from:Int64})) / 1000 AS avg
    FROM ${ch.table("journey_sessions_v2")} FINAL
    WHERE account_id = {account:UUID} AND link_id = {link:UUID} AND ended >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')${
      r.toMs === undefined ? "" : " AND started < fromUnixTimestamp64Milli({to:Int64}, 'UTC')"
    }`,
      params(r),
    ),
    topValues(ch, r),
  ]);
  return {
    total_visitors: visitors,
    total_sessions: Number(sessions?.n ?? 0),
    total_events: events,
    avg_session_duration_seconds: Math.round(finite(sessions?.avg) * 100) / 100,
    top_pages: tops.pages.map((x) => ({ url: x.value, count: x.count })),
    top_events: tops.events.map((x) => ({ name: x.value, count: x.count })),
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
  // One statement. ORDER BY timestamp DESC alone reads the table in key order and stops early, while the
  // event_id tie-break does not: so the page's last position's time (the `want` newest events' oldest,
  // or the period start when it has fewer) is found first, and the page is sorted among the events from
  // that time on, which hold every event of the page, ties included.
  const want = page.page * page.limit;
  const rows = await ch.query<Record<string, unknown>>(
    `
    WITH (SELECT if(count() < {want:UInt32}, fromUnixTimestamp64Milli({from:Int64}, 'UTC'), min(timestamp)) FROM (
      SELECT timestamp FROM ${t} WHERE ${where} ORDER BY timestamp DESC LIMIT {want:UInt32})) AS page_from
    SELECT event_id AS id, link_id, visitor_id, event_type, page_url, scroll_percent, time_on_page, timestamp,
      if(has_revenue, revenue_cents, NULL) AS revenue_cents, properties, ${OPTIONAL_TEXT.join(", ")},
      (SELECT count() FROM ${t} WHERE ${where}) AS total
    FROM ${t} WHERE ${where} AND timestamp >= page_from
    ORDER BY timestamp DESC, event_id LIMIT {limit:UInt32} OFFSET {offset:UInt32}
    ${SMALL_READS}`,
    { ...p, want },
  );
  // A page past the last one has no row to carry the total.
  const count = rows.length ? { n: rows[0].total } : (await ch.query<{ n: string }>(`SELECT count() AS n FROM ${t} WHERE ${where}`, p))[0];
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
