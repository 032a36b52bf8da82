// Every report's figures computed here, from the events and clicks the accuracy test sent, with the
// semantics the docs give (docs/accuracy.md); nothing is read back from the stores.
import type { SentEvent } from "./workload";

export interface Stored extends SentEvent {
  ms: number;
}
export const stored = (e: SentEvent): Stored => ({ ...e, link_id: e.link_id.toLowerCase(), ms: Date.parse(e.timestamp) });

const round2 = (n: number) => Math.round(n * 100) / 100;
const countBy = <T>(xs: T[], key: (x: T) => string) => {
  const m = new Map<string, number>();
  for (const x of xs) m.set(key(x), (m.get(key(x)) ?? 0) + 1);
  return m;
};
const distinct = <T>(xs: T[], key: (x: T) => string) => new Set(xs.map(key)).size;
const byCountThenValue = (a: [string, number], b: [string, number]) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
const iso = (ms: number) => new Date(ms).toISOString();

// ---- journey ----

export function journeySummary(events: Stored[], from: number) {
  const inPeriod = events.filter((e) => e.ms >= from);
  const sessions = groupSessions(events, from);
  const durations = [...sessions.values()].map((s) => Math.max(...s.map((e) => e.ms)) - Math.max(Math.min(...s.map((e) => e.ms)), from));
  const avg = durations.length ? durations.reduce((a, b) => a + b, 0) / durations.length / 1000 : 0;
  const top = (xs: Stored[], key: (e: Stored) => string) => [...countBy(xs, key)].sort(byCountThenValue).slice(0, 10);
  return {
    total_visitors: distinct(inPeriod, (e) => e.visitor_id),
    total_sessions: sessions.size,
    total_events: inPeriod.length,
    avg_session_duration_seconds: round2(avg),
    top_pages: top(
      inPeriod.filter((e) => e.event_type === "page_view"),
      (e) => e.page_url,
    ).map(([url, count]) => ({ url, count })),
    top_events: top(
      inPeriod.filter((e) => e.event_name),
      (e) => e.event_name!,
    ).map(([name, count]) => ({ name, count })),
  };
}

/** Whole sessions (every event, also before the period) with an event in the period. */
function groupSessions(events: Stored[], from: number) {
  const all = new Map<string, Stored[]>();
  for (const e of events) if (e.session_id) all.set(e.session_id, [...(all.get(e.session_id) ?? []), e]);
  return new Map([...all].filter(([, s]) => s.some((e) => e.ms >= from)));
}

const tupleLess = (a: (string | number)[], b: (string | number)[]) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
};

export function sessionsList(events: Stored[], from: number, visitor?: string) {
  const items = [...groupSessions(events, from)].map(([id, s]) => {
    let first = s[0];
    let last = s[0];
    for (const e of s) {
      if (tupleLess([e.ms, e.page_url, e.visitor_id], [first.ms, first.page_url, first.visitor_id])) first = e;
      if (tupleLess([last.ms, last.page_url], [e.ms, e.page_url])) last = e;
    }
    const max = (f: (e: Stored) => string) => s.map(f).reduce((a, b) => (b > a ? b : a), "");
    const device = max((e) => e.device_type ?? "");
    const country = max((e) => (e.country_code ?? "").toUpperCase());
    return {
      session_id: id,
      visitor_id: first.visitor_id,
      started_at: iso(first.ms),
      ended_at: iso(last.ms),
      duration_seconds: (last.ms - first.ms) / 1000,
      event_count: s.length,
      page_views: s.filter((e) => e.event_type === "page_view").length,
      entry_page: first.page_url,
      exit_page: last.page_url,
      converted: s.some((e) => e.event_type === "conversion"),
      device_type: device || null,
      country_code: country || null,
    };
  });
  return items
    .filter((x) => visitor === undefined || x.visitor_id === visitor)
    .sort((a, b) => (a.started_at < b.started_at ? 1 : a.started_at > b.started_at ? -1 : a.session_id < b.session_id ? -1 : 1));
}

const TEXT = ["session_id", "event_name", "page_title", "conversion_name", "currency", "country_code", "city", "region"] as const;
const TEXT2 = ["device_type", "browser", "browser_version", "os", "os_version"] as const;

/** An events list item without its id, as the API gives it. */
export function listedEvent(e: Stored) {
  const item: Record<string, unknown> = {
    link_id: e.link_id,
    visitor_id: e.visitor_id,
    event_type: e.event_type,
    page_url: e.page_url,
    scroll_percent: e.scroll_percent ?? null,
    time_on_page: e.time_on_page ?? null,
    timestamp: iso(e.ms),
    revenue_cents: e.revenue_cents ?? null,
    properties: e.properties ?? {},
  };
  for (const k of [...TEXT, ...TEXT2]) {
    const v = (e as unknown as Record<string, string | undefined>)[k];
    item[k] = v ? (k === "country_code" ? v.toUpperCase() : v) : null;
  }
  return item;
}

// windowFunnel(window, 'strict_order') over the events that match some step, as ClickHouse runs it.
export function funnel(events: Stored[], from: number, steps: string[], windowMs: number) {
  const byVisitor = new Map<string, [number, number][]>();
  for (const e of events) {
    if (e.ms < from) continue;
    const entries = byVisitor.get(e.visitor_id) ?? [];
    byVisitor.set(e.visitor_id, entries);
    steps.forEach((step, i) => {
      if (e.event_name === step || e.event_type === step || (e.event_type === "page_view" && e.page_url === step))
        entries.push([e.ms, i + 1]);
    });
  }
  const levels = [...byVisitor.values()].map((entries) => windowFunnelLevel(entries, steps.length, windowMs));
  const reached = steps.map((_, i) => levels.filter((l) => l > i).length);
  return {
    steps: steps.map((step_name, i) => ({
      step_name,
      visitors: reached[i],
      conversion_rate: i === 0 ? 100 : reached[i - 1] > 0 ? Math.round((reached[i] / reached[i - 1]) * 10_000) / 100 : 0,
    })),
    total_visitors: byVisitor.size,
  };
}

function windowFunnelLevel(entries: [number, number][], n: number, window: number): number {
  entries.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const starts: (number | null)[] = new Array(n).fill(null);
  let firstEvent = false;
  for (const [t, step] of entries) {
    const i = step - 1;
    if (i === 0) {
      starts[0] = t;
      firstEvent = true;
    } else if (firstEvent && starts[i - 1] === null) {
      return starts.findIndex((x) => x === null);
    } else if (starts[i - 1] !== null && t <= starts[i - 1]! + window) {
      starts[i] = starts[i - 1];
      if (i + 1 === n) return n;
    }
  }
  for (let i = n; i > 0; i--) if (starts[i - 1] !== null) return i;
  return 0;
}

// ---- conversions ----

const percent = (part: number, whole: number) => (whole > 0 ? round2((part / whole) * 100) : 0);
const money = (cents: number) => Math.round(cents) / 100;
const isConversion = (e: Stored) => e.event_type === "conversion";
const cents = (xs: Stored[]) => xs.reduce((a, e) => a + (e.revenue_cents ?? 0), 0);

export function conversionSummary(events: Stored[], from: number) {
  const inPeriod = events.filter((e) => e.ms >= from);
  const conv = inPeriod.filter(isConversion);
  const revenue = money(cents(conv));
  return {
    total_conversions: conv.length,
    unique_converters: distinct(conv, (e) => e.visitor_id),
    total_revenue: revenue,
    average_order_value: conv.length ? round2(revenue / conv.length) : 0,
    conversion_rate: percent(
      distinct(conv, (e) => e.visitor_id),
      distinct(inPeriod, (e) => e.visitor_id),
    ),
  };
}

export function conversionTimeseriesByDay(events: Stored[], from: number, nowMs: number) {
  const DAY = 86_400_000;
  const conv = events.filter((e) => e.ms >= from && isConversion(e));
  const first = Math.floor(from / DAY) * DAY;
  const last = Math.max(Math.floor(nowMs / DAY) * DAY, ...conv.map((e) => Math.floor(e.ms / DAY) * DAY));
  const points = [];
  for (let b = first; b <= last; b += DAY) {
    const inDay = conv.filter((e) => e.ms >= b && e.ms < b + DAY);
    points.push({ timestamp: iso(b), conversions: inDay.length, revenue: money(cents(inDay)) });
  }
  return points;
}

export type Dimension = "device" | "country" | "link" | "name";
const LABEL: Record<Dimension, (e: Stored) => string> = {
  device: (e) => e.device_type ?? "",
  country: (e) => (e.country_code ?? "").toUpperCase(),
  link: (e) => e.link_id,
  name: (e) => e.conversion_name || e.event_name || "",
};

export function conversionBreakdown(events: Stored[], from: number, dimension: Dimension) {
  const inPeriod = events.filter((e) => e.ms >= from);
  const label = LABEL[dimension];
  const labels = new Set(inPeriod.filter(isConversion).map(label));
  const allVisitors = distinct(inPeriod, (e) => e.visitor_id);
  return [...labels]
    .map((l) => {
      const conv = inPeriod.filter((e) => isConversion(e) && label(e) === l);
      const visitors =
        dimension === "name"
          ? allVisitors
          : distinct(
              inPeriod.filter((e) => label(e) === l),
              (e) => e.visitor_id,
            );
      return {
        label: l || "unknown",
        conversions: conv.length,
        revenue: money(cents(conv)),
        conversion_rate: percent(
          distinct(conv, (e) => e.visitor_id),
          visitors,
        ),
      };
    })
    .sort((a, b) => b.conversions - a.conversions || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
}

/** Time to convert: clicks maps a click id to its link and time. */
export function timeToConvert(events: Stored[], from: number, clicks: Map<string, { link: string; ms: number }>) {
  const firstTouch = new Map<string, number>();
  const firstConversion = new Map<string, number>();
  for (const e of events) {
    const k = `${e.link_id} ${e.visitor_id}`;
    firstTouch.set(k, Math.min(firstTouch.get(k) ?? Infinity, e.ms));
    if (isConversion(e)) firstConversion.set(k, Math.min(firstConversion.get(k) ?? Infinity, e.ms));
  }
  const spans: number[] = [];
  for (const [k, converted] of firstConversion) {
    if (converted < from) continue;
    const [link, visitor] = k.split(" ");
    const click = clicks.get(visitor.toLowerCase());
    const start = click && click.link === link ? click.ms : firstTouch.get(k)!;
    spans.push(Math.max(0, converted - start) / 1000);
  }
  spans.sort((a, b) => a - b);
  const h = 0.5 * (spans.length - 1);
  const lo = Math.floor(h);
  const median = spans.length ? spans[lo] + (h - lo) * ((spans[lo + 1] ?? spans[lo]) - spans[lo]) : 0;
  const bucket = (lo: number, hi: number) => spans.filter((s) => s >= lo && s < hi).length;
  return {
    buckets: [
      { label: "under 1 hour", count: bucket(0, 3600) },
      { label: "1-24 hours", count: bucket(3600, 86_400) },
      { label: "1-7 days", count: bucket(86_400, 604_800) },
      { label: "7+ days", count: bucket(604_800, Infinity) },
    ],
    average_seconds: round2(spans.length ? spans.reduce((a, b) => a + b, 0) / spans.length : 0),
    median_seconds: round2(median),
  };
}

// ---- clicks ----

export interface StoredClick {
  link: string;
  ms: number;
  /** The visitor as the server hashes it: address and agent, per UTC day. */
  person: string;
  bot: boolean;
  country: string;
  device: string;
  browser: string;
  os: string;
  referrer: string;
}

const day = (ms: number) => iso(ms).slice(0, 10);
const visitorOf = (c: StoredClick) => `${c.person} ${day(c.ms)}`;

/** The range of `days` days up to today, as the analytics endpoints take it (people only). */
export function clicksInRange(clicks: StoredClick[], days: number, nowMs: number) {
  const start = day(nowMs - (days - 1) * 86_400_000);
  return clicks.filter((c) => !c.bot && day(c.ms) >= start && day(c.ms) <= day(nowMs));
}

export function clickSummary(inRange: StoredClick[]) {
  return {
    total_clicks: inRange.length,
    unique_visitors: distinct(inRange, visitorOf),
    last_click_at: inRange.length ? iso(Math.max(...inRange.map((c) => c.ms))) : null,
    active_links: distinct(inRange, (c) => c.link),
  };
}

export function clickTimeseries(inRange: StoredClick[], days: number, nowMs: number) {
  return Array.from({ length: days }, (_, i) => day(nowMs - (days - 1 - i) * 86_400_000)).map((date) => {
    const on = inRange.filter((c) => day(c.ms) === date);
    return { date, clicks: on.length, unique_visitors: distinct(on, visitorOf) };
  });
}

export function clickHours(inRange: StoredClick[]) {
  return Array.from({ length: 24 }, (_, hour) => {
    const at = inRange.filter((c) => new Date(c.ms).getUTCHours() === hour);
    return { hour, clicks: at.length, unique_visitors: distinct(at, visitorOf) };
  });
}

export function clicksBy(inRange: StoredClick[], key: (c: StoredClick) => string) {
  return [...countBy(inRange, key)].sort(byCountThenValue).map(([label, clicks]) => ({
    label,
    clicks,
    unique_visitors: distinct(
      inRange.filter((c) => key(c) === label),
      visitorOf,
    ),
  }));
}

export function linkClickStats(all: StoredClick[], link: string) {
  const mine = all.filter((c) => c.link === link);
  const people = mine.filter((c) => !c.bot);
  return {
    total_clicks: mine.length,
    human_clicks: people.length,
    bot_clicks: mine.length - people.length,
    unique_visitors: distinct(people, visitorOf),
  };
}
