// The journey reports as CSV tables (server/http/csv-report.ts; docs/exports.md "Reports as CSV").
import { csvTable, type CsvColumn } from "../http/csv-report";
import type { Static } from "elysia";
import type { Funnel, JourneyEventItem, JourneySession, JourneySummary } from "./model";

const col = <R>(name: string, description: string, value?: (row: R) => unknown): CsvColumn<R> => ({ name, description, value });
const same = (names: readonly string[]) => names.map((name) => col(name, `as \`${name}\` in the JSON answer`));

interface Metric {
  metric: string;
  name?: string;
  value: number | string | null;
  imported_from?: string;
}

type Summary = Static<typeof JourneySummary>;
type Imported = NonNullable<Summary["imported"]>;

/** The imported breakdowns, each value a row under the singular of its field (`sources` → `source`). */
const IMPORTED_BREAKDOWNS = [
  ["sources", "source"],
  ["entry_pages", "entry_page"],
  ["exit_pages", "exit_page"],
  ["countries", "country"],
  ["devices", "device"],
  ["browsers", "browser"],
  ["operating_systems", "operating_system"],
] as const satisfies readonly (readonly [keyof Imported, string])[];

/** The JSON's `imported`, as rows marked with the product they come from: never mixed with our own rows. */
function importedRows(i: Imported): Metric[] {
  const rows: Metric[] = [
    { metric: "from", value: i.from },
    { metric: "to", value: i.to },
    { metric: "own_data_from", value: i.own_data_from },
    { metric: "visitors", value: i.visitors },
    { metric: "visits", value: i.visits },
    { metric: "pageviews", value: i.pageviews },
    { metric: "bounce_rate", value: i.bounce_rate },
    { metric: "avg_visit_duration_seconds", value: i.avg_visit_duration_seconds },
    ...i.top_pages.map((p) => ({ metric: "top_page", name: p.url, value: p.count })),
    ...i.top_events.map((e) => ({ metric: "top_event", name: e.name, value: e.count })),
    ...IMPORTED_BREAKDOWNS.flatMap(([field, metric]) => i[field].map((v) => ({ metric, name: v.value, value: v.visitors }))),
    ...i.daily.flatMap((d) => [
      { metric: "daily_visitors", name: d.date, value: d.visitors },
      { metric: "daily_visits", name: d.date, value: d.visits },
      { metric: "daily_pageviews", name: d.date, value: d.pageviews },
    ]),
  ];
  return rows.map((r) => ({ ...r, imported_from: i.source }));
}

export const csvJourneySummary = csvTable({
  file: "journey-summary",
  rows: "One row per number: the totals (empty `name`), then `top_page` rows (name: the URL) and `top_event` rows (name: the event); then, when the link has imported days, the JSON's `imported` as rows whose `imported_from` names the product (never part of the rows above).",
  toRows: (s: Summary): Metric[] => [
    { metric: "total_visitors", value: s.total_visitors },
    { metric: "total_sessions", value: s.total_sessions },
    { metric: "total_events", value: s.total_events },
    { metric: "avg_session_duration_seconds", value: s.avg_session_duration_seconds },
    ...s.top_pages.map((p) => ({ metric: "top_page", name: p.url, value: p.count })),
    ...s.top_events.map((e) => ({ metric: "top_event", name: e.name, value: e.count })),
    ...(s.imported ? importedRows(s.imported) : []),
  ],
  columns: [
    col(
      "metric",
      "total_visitors, total_sessions, total_events, avg_session_duration_seconds, top_page or top_event; on an imported row also from, to, own_data_from, visitors, visits, pageviews, bounce_rate, avg_visit_duration_seconds, a breakdown whose value is visitors (source, entry_page, exit_page, country, device, browser, operating_system) or a day's figure (daily_visitors, daily_visits, daily_pageviews)",
    ),
    col("name", "the page's URL, the event's name, the breakdown's value or the day (YYYY-MM-DD); empty for totals"),
    col("value", "the number (a date for from, to and own_data_from; empty for an own_data_from of null)"),
    col("imported_from", "empty for our own figures; on an imported row, the product it comes from (plausible)"),
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
