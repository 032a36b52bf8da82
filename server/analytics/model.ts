// Wire schemas and types of click analytics (API_SPEC "Analytics", "Analytics result rows",
// "Analytics usage object", "Link stats").
import { t, type Static } from "elysia";

export const BOT_FILTERS = ["real", "bot", "all"] as const;
export type BotFilter = (typeof BOT_FILTERS)[number];

const DATE = "^[0-9]{4}-[0-9]{2}-[0-9]{2}$";

export const CLICK_SOURCES = ["link", "qr"] as const;
export type ClickSource = (typeof CLICK_SOURCES)[number];
export const CLICK_GROUPS = ["variant", "rule", "source"] as const;
export type ClickGroup = (typeof CLICK_GROUPS)[number];
const GroupBy = t.Optional(
  t.Union(
    CLICK_GROUPS.map((g) => t.Literal(g)),
    { description: "Adds `groups`: the numbers per A/B variant (by URL), per targeting rule (1-based) or per source (link, qr)" },
  ),
);

export const AnalyticsQuery = t.Object({
  // Bounds are checked in range.ts (checkQueryBounds): Elysia's coerced-integer bound errors lose the field name.
  days: t.Optional(t.Integer({ description: "Rolling window in days including today, 1 to 365 (default 30)" })),
  start_date: t.Optional(t.String({ pattern: DATE, description: "YYYY-MM-DD; overrides days" })),
  end_date: t.Optional(t.String({ pattern: DATE, description: "YYYY-MM-DD" })),
  bot_filter: t.Optional(
    t.Union(
      BOT_FILTERS.map((f) => t.Literal(f)),
      { description: "real (default), bot or all" },
    ),
  ),
  domain_name: t.Optional(
    t.String({ minLength: 1, maxLength: 253, pattern: "^[A-Za-z0-9.-]+(:[0-9]{1,5})?$", description: "A custom domain" }),
  ),
  source: t.Optional(
    t.Union(
      CLICK_SOURCES.map((s) => t.Literal(s)),
      { description: "Only clicks of this source: qr (scans of the link's QR code) or link (every other click)" },
    ),
  ),
});
/** The summary and timeseries also take group_by. */
export const GroupedAnalyticsQuery = t.Composite([AnalyticsQuery, t.Object({ group_by: GroupBy })]);
export type GroupedAnalyticsQuery = Static<typeof GroupedAnalyticsQuery>;
export const LinkStatsQuery = t.Object({ group_by: GroupBy });
export type AnalyticsQuery = Static<typeof AnalyticsQuery>;

export const LinkIdParams = t.Object({ id: t.String({ format: "uuid" }) });

/** An inclusive range of UTC dates (YYYY-MM-DD); empty when start > end. */
export interface DateRange {
  start: string;
  end: string;
}

/** What every analytics query is scoped by. */
export interface ClickScope {
  accountId: string;
  range: DateRange;
  botFilter: BotFilter;
  domain?: string;
  source?: ClickSource;
}

export interface AnalyticsUsage {
  clicks_this_month: number;
  click_limit: number | null;
  limit_exceeded: boolean;
  tier: string;
  retention_days: number;
  cutoff_date?: string;
}

export interface SummaryRow {
  total_clicks: number;
  unique_visitors: number;
  total_links: number;
  last_click_at: string | null;
  today_clicks: number;
  yesterday_clicks: number;
  active_links: number;
  total_links_count: number;
  links_this_month: number;
  clicks_this_month: number;
}
export interface TimeseriesRow {
  date: string;
  clicks: number;
  unique_visitors: number;
}
export interface GeoRow {
  country_code: string;
  clicks: number;
  unique_visitors: number;
}
export interface DeviceRow {
  device_type: string;
  browser: string;
  os: string;
  clicks: number;
}
export interface ReferrerRow {
  referrer: string;
  clicks: number;
  unique_visitors: number;
}
export interface HourlyRow {
  hour: number;
  clicks: number;
  unique_visitors: number;
}

export interface LinkStats {
  short_code: string;
  original_url: string;
  total_clicks: number;
  unique_visitors: number;
  bot_clicks: number;
  human_clicks: number;
  last_accessed_at: string | null;
  is_active: boolean;
  days_active: number;
  average_clicks_per_day: number;
  conversion_rate: number;
}
