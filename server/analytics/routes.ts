// Click analytics routes: the six account reports and one link's stats (scope analytics:read).
import { Elysia } from "elysia";
import type { FeatureDeps } from "../app";
import { AnalyticsQuery, GroupedAnalyticsQuery, LinkIdParams, LinkStatsQuery } from "./model";
import * as service from "./service";

export function analyticsRoutes(deps: FeatureDeps) {
  const d = { pg: deps.pg, ch: deps.ch };
  const detail = { tags: ["Analytics"] };
  const opts = { scope: "analytics:read" as const, query: AnalyticsQuery, detail };
  return (
    new Elysia({ prefix: "/public-api/v1" })
      .use(deps.auth)
      // API_SPEC "Analytics": GET /analytics/summary
      .get("/analytics/summary", ({ account, query }) => service.getSummaryReport(d, account, query), {
        ...opts,
        query: GroupedAnalyticsQuery,
      })
      // API_SPEC "Analytics": GET /analytics/timeseries
      .get("/analytics/timeseries", ({ account, query }) => service.getTimeseriesReport(d, account, query), {
        ...opts,
        query: GroupedAnalyticsQuery,
      })
      // API_SPEC "Analytics": GET /analytics/geo
      .get("/analytics/geo", ({ account, query }) => service.getGeoReport(d, account, query), opts)
      // API_SPEC "Analytics": GET /analytics/devices
      .get("/analytics/devices", ({ account, query }) => service.getDevicesReport(d, account, query), opts)
      // API_SPEC "Analytics": GET /analytics/referrers
      .get("/analytics/referrers", ({ account, query }) => service.getReferrersReport(d, account, query), opts)
      // API_SPEC "Analytics": GET /analytics/hourly
      .get("/analytics/hourly", ({ account, query }) => service.getHourlyReport(d, account, query), opts)
      // API_SPEC "Links": GET /links/{id}/stats
      .get("/links/:id/stats", ({ account, params, query }) => service.getLinkStats(d, account.id, params.id, query.group_by), {
        scope: "analytics:read",
        params: LinkIdParams,
        query: LinkStatsQuery,
        detail,
      })
  );
}
