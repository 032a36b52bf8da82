// Conversion report routes (API_SPEC "Conversions", permission conversions:read).
import { Elysia, t } from "elysia";
import type { TSchema } from "@sinclair/typebox";
import type { FeatureDeps } from "../app";
import { operation } from "../openapi/operation";
import {
  BreakdownQuery,
  ConversionBreakdownRow,
  ConversionPoint,
  ConversionSummary,
  ConversionsQuery,
  TimeToConvert,
  TimeseriesQuery,
} from "./model";
import { getConversionBreakdown, getConversionSummary, getConversionTimeseries, getTimeToConvert } from "./service";

const SCOPE = "Scoped to the account, or to `link_id` / `domain_id` (404 when not the account's); `period` 24h, 7d, 30d (default) or 90d.";
const report = (id: string, summary: string, data: TSchema, description: string) =>
  operation({
    id,
    tag: "Conversions",
    summary,
    description: `${description} ${SCOPE}`,
    responses: { 200: { description: summary, data } },
    errors: ["NOT_FOUND"],
  });

export function conversionRoutes(deps: FeatureDeps) {
  const reports = { db: deps.pg.db, ch: deps.ch };
  return (
    new Elysia({ name: "conversions", prefix: "/public-api/v1" })
      .use(deps.auth)
      // API_SPEC "Conversions": GET /conversions/summary
      .get("/conversions/summary", ({ account, query }) => getConversionSummary(reports, account.id, query), {
        scope: "conversions:read",
        query: ConversionsQuery,
        detail: report("getConversionSummary", "Conversion totals", ConversionSummary, "Conversions, converters, revenue and rate."),
      })
      // API_SPEC "Conversions": GET /conversions/timeseries
      .get("/conversions/timeseries", ({ account, query }) => getConversionTimeseries(reports, account.id, query), {
        scope: "conversions:read",
        query: TimeseriesQuery,
        detail: report(
          "getConversionTimeseries",
          "Conversions over time",
          t.Array(ConversionPoint),
          "One point per `interval` (hour, day (default), week from Monday, month), oldest first, empty buckets as zeros.",
        ),
      })
      // API_SPEC "Conversions": GET /conversions/breakdown
      .get("/conversions/breakdown", ({ account, query }) => getConversionBreakdown(reports, account.id, query), {
        scope: "conversions:read",
        query: BreakdownQuery,
        detail: report(
          "getConversionBreakdown",
          "Conversions by dimension",
          t.Array(ConversionBreakdownRow),
          "Rows by `dimension` (device, country, link or name), most conversions first.",
        ),
      })
      // API_SPEC "Conversions": GET /conversions/time-to-convert
      .get("/conversions/time-to-convert", ({ account, query }) => getTimeToConvert(reports, account.id, query), {
        scope: "conversions:read",
        query: ConversionsQuery,
        detail: report("getTimeToConvert", "Time from click to conversion", TimeToConvert, "Four buckets, the average and the median."),
      })
  );
}
