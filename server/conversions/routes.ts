// Conversion report routes (API_SPEC "Conversions", permission conversions:read).
import { Elysia } from "elysia";
import type { FeatureDeps } from "../app";
import { BreakdownQuery, ConversionsQuery, TimeseriesQuery } from "./model";
import { getConversionBreakdown, getConversionSummary, getConversionTimeseries, getTimeToConvert } from "./service";

export function conversionRoutes(deps: FeatureDeps) {
  const reports = { db: deps.pg.db, ch: deps.ch };
  return (
    new Elysia({ name: "conversions", prefix: "/public-api/v1" })
      .use(deps.auth)
      // API_SPEC "Conversions": GET /conversions/summary
      .get("/conversions/summary", ({ account, query }) => getConversionSummary(reports, account.id, query), {
        scope: "conversions:read",
        query: ConversionsQuery,
      })
      // API_SPEC "Conversions": GET /conversions/timeseries
      .get("/conversions/timeseries", ({ account, query }) => getConversionTimeseries(reports, account.id, query), {
        scope: "conversions:read",
        query: TimeseriesQuery,
      })
      // API_SPEC "Conversions": GET /conversions/breakdown
      .get("/conversions/breakdown", ({ account, query }) => getConversionBreakdown(reports, account.id, query), {
        scope: "conversions:read",
        query: BreakdownQuery,
      })
      // API_SPEC "Conversions": GET /conversions/time-to-convert
      .get("/conversions/time-to-convert", ({ account, query }) => getTimeToConvert(reports, account.id, query), {
        scope: "conversions:read",
        query: ConversionsQuery,
      })
  );
}
