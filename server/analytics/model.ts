// Wire schemas and types of click analytics (docs/api.md "Click analytics": the
// report rows, the usage object, link stats).
import { t, type Static } from "elysia";
import type { TSchema } from "@sinclair/typebox";
import { StrictQuery } from "../http/strict-query";
import { CompareParam, ComparisonOf } from "../reports/compare-model";

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

const DOMAIN = {
  minLength: 1,
  maxLength: 253,
  pattern: "^[A-Za-z0-9.-]+(:[0-9]{1,5})?$",
  description: "Only clicks through this custom domain (its name; case and port ignored)",
};

/** The filters every click report takes (docs/api.md "Click analytics"): they narrow the clicks, never widen them. */
const reportFilters = {
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
  link_id: t.Optional(t.String({ format: "uuid", description: "Only this link's clicks (404 when it is not the account's, or deleted)" })),
  tag: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 64,
      description: "Only clicks of the live links carrying this tag (404 when no live link of the account has it)",
    }),
  ),
  campaign_id: t.Optional(
    t.String({ format: "uuid", description: "Only clicks of the campaign's live links (404 when it is not the account's)" }),
  ),
  domain: t.Optional(t.String(DOMAIN)),
  domain_name: t.Optional(t.String({ ...DOMAIN, description: "The former name of `domain`, still accepted" })),
  source: t.Optional(
    t.Union(
      CLICK_SOURCES.map((s) => t.Literal(s)),
      { description: "Only clicks of this source: qr (scans of the link's QR code) or link (every other click)" },
    ),
  ),
  compare: CompareParam,
};
export const AnalyticsQuery = StrictQuery(reportFilters);
/** The summary and timeseries also take group_by. */
export const GroupedAnalyticsQuery = StrictQuery({ ...reportFilters, group_by: GroupBy });
export type GroupedAnalyticsQuery = Static<typeof GroupedAnalyticsQuery>;
export const LinkStatsQuery = StrictQuery({ group_by: GroupBy });
/** At most this many links per call of GET /analytics/links (one page of the links list). */
export const MAX_LINKS_PER_CALL = 100;
export const LinksClicksQuery = StrictQuery({
  link_ids: t.String({
    minLength: 36,
    maxLength: MAX_LINKS_PER_CALL * 37,
    pattern: "^[0-9a-fA-F-]{36}(,[0-9a-fA-F-]{36})*$",
    description: `Comma-separated link ids, 1 to ${MAX_LINKS_PER_CALL} (404 when one is not the account's, or deleted)`,
  }),
  days: t.Optional(t.Integer({ description: "Days including today, 1 to 90 (default 7)" })),
  bot_filter: reportFilters.bot_filter,
});
export type LinksClicksQuery = Static<typeof LinksClicksQuery>;
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
  /**
   * The links the filters link_id, tag and campaign_id resolve to (their intersection); undefined when
   * none is given. Never empty: a filter that covers no link leaves nothing to read (see service.ts).
   */
  linkIds?: string[];
  /**
   * Set by the service to have the report's own statement read the account's clicks per day of this
   * month (the usage figures) beside its rows; filled in when the report reads its cells (visitor-days.ts).
   */
  usage?: UsageProbe;
}

/** The account's clicks per day since `from` (the month's start), read with a report's statement. */
export interface UsageProbe {
  from: string;
  daily?: Map<string, number>;
}

// Responses (the usage object, the report rows, link stats): the types the
// queries return are these schemas' static types, and the tests check every answer against them.
const Count = t.Integer({ minimum: 0 });
/** docs/accuracy.md: what a click visitor is. */
const Visitors = t.Integer({
  minimum: 0,
  description:
    "Unique visitors, each counted once per UTC day (a range sums its days): no stored identifier crosses days, since the visitor hash is salted per UTC day.",
});
const Clicks = { clicks: Count, unique_visitors: Visitors };
const row = <T extends Record<string, TSchema>>(id: string, props: T) => t.Object(props, { $id: id, additionalProperties: false });

export const AnalyticsUsage = row("AnalyticsUsage", {
  clicks_this_month: Count,
  click_limit: t.Union([Count, t.Null()], { description: "null when the tier has no click limit" }),
  limit_exceeded: t.Boolean(),
  tier: t.String(),
  retention_days: Count,
  cutoff_date: t.Optional(t.String({ pattern: DATE, description: "Only when limit_exceeded: the earliest date reports include" })),
});
export type AnalyticsUsage = Static<typeof AnalyticsUsage>;

/** The value a group row stands for: one of these, after group_by. */
const GroupValue = {
  variant: t.Optional(t.String({ description: "group_by=variant: the variant's URL" })),
  rule: t.Optional(t.Integer({ minimum: 1, description: "group_by=rule: the rule's 1-based position" })),
  source: t.Optional(t.Union([t.Literal("link"), t.Literal("qr")], { description: "group_by=source" })),
};
export const ClickGroupJson = row("ClickGroup", {
  ...GroupValue,
  link_id: t.Optional(t.String({ format: "uuid", description: "For variant and rule: the link they belong to" })),
  ...Clicks,
});
const Groups = t.Optional(t.Array(ClickGroupJson, { description: "Only with group_by" }));

export const SummaryRow = row("AnalyticsSummary", {
  total_clicks: Count,
  unique_visitors: Visitors,
  total_links: Count,
  last_click_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
  today_clicks: Count,
  yesterday_clicks: Count,
  active_links: Count,
  total_links_count: Count,
  links_this_month: Count,
  clicks_this_month: Count,
  groups: Groups,
});
export type SummaryRow = Static<typeof SummaryRow>;
export const TimeseriesRow = row("TimeseriesRow", { date: t.String({ pattern: DATE }), ...Clicks, groups: Groups });
export type TimeseriesRow = Static<typeof TimeseriesRow>;
export const GeoRow = row("GeoRow", { country_code: t.String({ description: "ISO 3166-1 alpha-2; XX when unknown" }), ...Clicks });
export type GeoRow = Static<typeof GeoRow>;
export const DeviceRow = row("DeviceRow", { device_type: t.String(), browser: t.String(), os: t.String(), clicks: Count });
export type DeviceRow = Static<typeof DeviceRow>;
export const ReferrerRow = row("ReferrerRow", { referrer: t.String({ description: "Lower-case host; `direct` when none" }), ...Clicks });
export type ReferrerRow = Static<typeof ReferrerRow>;
export const HourlyRow = row("HourlyRow", { hour: t.Integer({ minimum: 0, maximum: 23, description: "UTC" }), ...Clicks });
export type HourlyRow = Static<typeof HourlyRow>;

export const LinkClicksRow = row("LinkClicksRow", {
  link_id: t.String({ format: "uuid" }),
  clicks: Count,
  daily: t.Array(Count, { description: "Clicks per UTC day, oldest first, one entry per day of the range" }),
});
export type LinkClicksRow = Static<typeof LinkClicksRow>;

/** `data` of an analytics report: the rows, the account's click usage and, with `compare`, the compared range's rows. */
export const analyticsResult = (analytics: TSchema, figures?: string) =>
  t.Object({ analytics, usage: AnalyticsUsage, comparison: t.Optional(ComparisonOf(analytics, figures)) }, { additionalProperties: false });

export const LinkStatsGroup = row("LinkStatsGroup", {
  ...GroupValue,
  weight: t.Optional(t.Union([Count, t.Null()], { description: "A variant's weight; null for one no longer on the link" })),
  url: t.Optional(t.Union([t.String(), t.Null()], { description: "A rule's destination; null for one no longer on the link" })),
  total_clicks: Count,
  human_clicks: Count,
  bot_clicks: Count,
  unique_visitors: Visitors,
  conversions: Count,
  revenue: t.Number({ minimum: 0, description: "In the major unit (cents ÷ 100)" }),
  conversion_rate: t.Number({
    minimum: 0,
    description: "Click conversion rate: converters (tracker visitor ids) as a percent of the click visitors (unique_visitors)",
  }),
});

export const LinkStats = row("LinkStats", {
  short_code: t.String(),
  original_url: t.String(),
  total_clicks: Count,
  unique_visitors: Visitors,
  bot_clicks: Count,
  human_clicks: Count,
  last_accessed_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
  is_active: t.Boolean(),
  days_active: t.Integer({ minimum: 1 }),
  average_clicks_per_day: t.Number({ minimum: 0 }),
  conversion_rate: t.Number({
    minimum: 0,
    description: "Click conversion rate: converters (tracker visitor ids) as a percent of the click visitors (unique_visitors)",
  }),
  imported_clicks: t.Integer({
    minimum: 0,
    description:
      "Clicks brought in by imports (POST /imports), never part of the figures above: the other product's total (Bitly, Dub, Shlink, Kutt) plus the raw clicks imported from YOURLS' log or our clicks export",
  }),
  groups: t.Optional(t.Array(LinkStatsGroup, { description: "Only with group_by" })),
});
export type LinkStats = Static<typeof LinkStats>;
