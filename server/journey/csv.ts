// The journey reports as CSV tables (server/http/csv-report.ts; docs/exports.md "Reports as CSV").
import { csvTable, type CsvColumn } from "../http/csv-report";
import type { Static } from "elysia";
import type { Funnel, JourneyEventItem, JourneySession, JourneySummary } from "./model";

const col = <R>(name: string, description: string, value?: (row: R) => unknown): CsvColumn<R> => ({ name, description, value });
const same = (names: readonly string[]) => names.map((name) => col(name, `as \`${name}\` in the JSON answer`));

interface Metric {
  metric: string;
  name?: string;
  value: number;
}

export const csvJourneySummary = csvTable({
  file: "journey-summary",
  rows: "One row per number: the totals (empty `name`), then `top_page` rows (name: the URL) and `top_event` rows (name: the event).",
  toRows: (s: Static<typeof JourneySummary>): Metric[] => [
    { metric: "total_visitors", value: s.total_visitors },
    { metric: "total_sessions", value: s.total_sessions },
    { metric: "total_events", value: s.total_events },
    { metric: "avg_session_duration_seconds", value: s.avg_session_duration_seconds },
    ...s.top_pages.map((p) => ({ metric: "top_page", name: p.url, value: p.count })),
    ...s.top_events.map((e) => ({ metric: "top_event", name: e.name, value: e.count })),
  ],
  columns: [
    col("metric", "total_visitors, total_sessions, total_events, avg_session_duration_seconds, top_page or top_event"),
    col("name", "the page's URL or the event's name; empty for totals"),
    col("value", "the number"),
  ],
});

type Session = Static<typeof JourneySession>;
export const csvJourneySessions = csvTable({
  file: "journey-sessions",
  rows: "One row per session of the page asked for (`page`, `limit`), newest first.",
  toRows: (items: Session[]) => items,
  columns: same([
    "session_id",
    "visitor_id",
    "started_at",
    "ended_at",
    "duration_seconds",
    "event_count",
    "page_views",
    "entry_page",
    "exit_page",
    "converted",
    "device_type",
    "country_code",
  ]),
});

type EventItem = Static<typeof JourneyEventItem>;
export const csvJourneyEvents = csvTable({
  file: "journey-events",
  rows: "One row per event of the page asked for (`page`, `limit`), newest first; absent fields are empty.",
  toRows: (items: EventItem[]) => items,
  columns: [
    ...same([
      "id",
      "link_id",
      "visitor_id",
      "session_id",
      "event_type",
      "event_name",
      "page_url",
      "page_title",
      "scroll_percent",
      "time_on_page",
      "timestamp",
      "conversion_name",
      "revenue_cents",
      "currency",
      "country_code",
      "city",
      "region",
      "device_type",
      "browser",
      "browser_version",
      "os",
      "os_version",
    ]),
    col<EventItem>("properties", "the event's properties as a JSON object", (e) => JSON.stringify(e.properties)),
  ],
});

type FunnelData = Static<typeof Funnel>;
export const csvFunnel = csvTable({
  file: "journey-funnel",
  rows: "One row per step, in order.",
  toRows: (f: FunnelData) => f.steps.map((s, i) => ({ ...s, step: i + 1, total_visitors: f.total_visitors })),
  columns: [
    col("step", "1-based position"),
    ...same(["step_name", "visitors", "conversion_rate"]),
    col("total_visitors", "every visitor of the link in the period (the same on every row)"),
  ],
});
