// Click analytics routes: the six account reports and one link's stats (scope analytics:read).
import { Elysia, t } from "elysia";
import type { TSchema } from "@sinclair/typebox";
import { API_PREFIX } from "../http/api-prefix";
import type { Auth } from "../http/auth";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Postgres } from "../storage/postgres/client";
import { operation, REPORT_ERRORS } from "../openapi/operation";
import * as m from "./model";
import * as service from "./service";

/** A report's route options: its query, permission and document entry. */
const report = <Q extends TSchema = typeof m.AnalyticsQuery>(
  id: string,
  summary: string,
  analytics: TSchema,
  description: string,
  query?: Q,
) => ({
  scope: "analytics:read" as const,
  query: (query ?? m.AnalyticsQuery) as Q,
  detail: operation({
    id,
    tag: "Analytics",
    summary,
    description:
      `${description} Ranges are clamped to the tier's retention and, past the monthly click budget, to \`usage.cutoff_date\`. ` +
      "Without them it counts every click of the account, deleted links' too; `link_id`, `tag` and `campaign_id` narrow it to those live links " +
      "(404 when the account has no such link, tag or campaign, or the link is deleted); " +
      "a query parameter the report does not take is a 400 naming it.",
    responses: { 200: { description: "The report and the account's click usage", data: m.analyticsResult(analytics) } },
    errors: ["NOT_FOUND", ...REPORT_ERRORS],
  }),
});

export function analyticsRoutes(deps: { pg: Postgres; ch: Clickhouse; auth: Auth }) {
  const d = { pg: deps.pg, ch: deps.ch };
  return (
    new Elysia({ prefix: API_PREFIX })
      .use(deps.auth)
      // GET /analytics/summary
      .get(
        "/analytics/summary",
        ({ account, query }) => service.getSummaryReport(d, account, query),
        report(
          "getAnalyticsSummary",
          "Click totals",
          m.SummaryRow,
          "Totals over the range and filters; with `group_by`, `groups` splits them by A/B variant, targeting rule or source.",
          m.GroupedAnalyticsQuery,
        ),
      )
      // GET /analytics/timeseries
      .get(
        "/analytics/timeseries",
        ({ account, query }) => service.getTimeseriesReport(d, account, query),
        report(
          "getAnalyticsTimeseries",
          "Clicks per day",
          t.Array(m.TimeseriesRow),
          "One row per UTC day, oldest first, empty days as zeros; with `group_by`, each day's `groups`.",
          m.GroupedAnalyticsQuery,
        ),
      )
      // GET /analytics/geo
      .get(
        "/analytics/geo",
        ({ account, query }) => service.getGeoReport(d, account, query),
        report("getAnalyticsGeo", "Clicks by country", t.Array(m.GeoRow), "Sorted by clicks, top 1,000."),
      )
      // GET /analytics/devices
      .get(
        "/analytics/devices",
        ({ account, query }) => service.getDevicesReport(d, account, query),
        report("getAnalyticsDevices", "Clicks by device, browser and OS", t.Array(m.DeviceRow), "Sorted by clicks, top 1,000."),
      )
      // GET /analytics/referrers
      .get(
        "/analytics/referrers",
        ({ account, query }) => service.getReferrersReport(d, account, query),
        report(
          "getAnalyticsReferrers",
          "Clicks by referrer",
          t.Array(m.ReferrerRow),
          "Sorted by clicks, top 1,000; no referrer is `direct`.",
        ),
      )
      // GET /analytics/hourly
      .get(
        "/analytics/hourly",
        ({ account, query }) => service.getHourlyReport(d, account, query),
        report("getAnalyticsHourly", "Clicks by hour of day", t.Array(m.HourlyRow), "Always 24 rows, hours 0–23 UTC."),
      )
      // GET /analytics/links
      .get(
        "/analytics/links",
        ({ account, query }) => service.getLinksClicks(d, account, query),
        report(
          "getAnalyticsLinks",
          "Clicks per day of some links",
          t.Array(m.LinkClicksRow),
          "For each link asked for, in that order: its clicks in the last `days` days (default 7) and one number per day (the links list's sparkline).",
          m.LinksClicksQuery,
        ),
      )
      // GET /links/{id}/stats
      .get("/links/:id/stats", ({ account, params, query }) => service.getLinkStats(d, account.id, params.id, query.group_by), {
        scope: "analytics:read",
        params: m.LinkIdParams,
        query: m.LinkStatsQuery,
        detail: operation({
          id: "getLinkStats",
          tag: "Links",
          summary: "Click stats of a link",
          description:
            "Lifetime numbers; `total_clicks = human_clicks + bot_clicks`. With `group_by`, `groups` gives clicks, visitors, conversions and revenue per variant, rule or source.",
          responses: { 200: { description: "The link's stats", data: m.LinkStats } },
          errors: ["NOT_FOUND", ...REPORT_ERRORS],
        }),
      })
  );
}
