// Conversion report routes (docs/api.md "Conversions", scope conversions:read).
import { Elysia } from "elysia";
import type { TSchema } from "@sinclair/typebox";
import { API_PREFIX } from "../http/api-prefix";
import type { Auth } from "../http/auth";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Postgres } from "../storage/postgres/client";
import { csvReports } from "../http/csv-report";
import * as csv from "./csv";
import { operation, REPORT_ERRORS } from "../openapi/operation";
import { ROLLING_COMPARE_DOC as COMPARE_DOC } from "../reports/compare-model";
import {
  BreakdownQuery,
  ComparableConversionBreakdown,
  ComparableConversionSummary,
  ComparableConversionTimeseries,
  ComparableTimeToConvert,
  ConversionsQuery,
  TimeseriesQuery,
} from "./model";
import { getConversionBreakdown, getConversionSummary, getConversionTimeseries, getTimeToConvert } from "./service";

const SCOPE =
  "Scoped to the account (deleted links' conversions included), or to `link_id` / `domain_id` (404 when not the account's or a deleted link; `domain_id` covers the live links on the domain); `period` 24h, 7d, 30d (default) or 90d.";
const report = (id: string, summary: string, data: TSchema, description: string) =>
  operation({
    id,
    tag: "Conversions",
    summary,
    description: `${description} ${SCOPE}`,
    responses: { 200: { description: summary, data } },
    errors: ["NOT_FOUND", ...REPORT_ERRORS],
  });

const LIST_COMPARE_DOC =
  "Without `compare` the answer is the list; with `compare=previous|year` it is `{ analytics, comparison }` (the click list reports' shape): the list under `analytics`, and in `comparison.data` the same list over the period's whole hours shifted back by the period rounded up to whole weeks (or 364 days), `change` over the rows' sums of conversions and revenue; not with CSV.";

export function conversionRoutes(deps: { pg: Postgres; ch: Clickhouse; auth: Auth }) {
  const reports = { db: deps.pg.db, ch: deps.ch };
  return (
    new Elysia({ name: "conversions", prefix: API_PREFIX })
      .use(deps.auth)
      .use(csvReports)
      // GET /conversions/summary
      .get("/conversions/summary", ({ account, query }) => getConversionSummary(reports, account.id, query), {
        scope: "conversions:read",
        query: ConversionsQuery,
        csv: csv.csvConversionSummary,
        detail: report(
          "getConversionSummary",
          "Conversion totals",
          ComparableConversionSummary,
          `Conversions, converters, revenue and rate. ${COMPARE_DOC}`,
        ),
      })
      // GET /conversions/timeseries
      .get("/conversions/timeseries", ({ account, query }) => getConversionTimeseries(reports, account.id, query), {
        scope: "conversions:read",
        query: TimeseriesQuery,
        csv: csv.csvConversionTimeseries,
        detail: report(
          "getConversionTimeseries",
          "Conversions over time",
          ComparableConversionTimeseries,
          `One point per \`interval\` (hour, day (default), week from Monday, month), oldest first, empty buckets as zeros. ${LIST_COMPARE_DOC}`,
        ),
      })
      // GET /conversions/breakdown
      .get("/conversions/breakdown", ({ account, query }) => getConversionBreakdown(reports, account.id, query), {
        scope: "conversions:read",
        query: BreakdownQuery,
        csv: csv.csvConversionBreakdown,
        detail: report(
          "getConversionBreakdown",
          "Conversions by dimension",
          ComparableConversionBreakdown,
          `Rows by \`dimension\` (device, country, link, name or variant), most conversions first. ${LIST_COMPARE_DOC}`,
        ),
      })
      // GET /conversions/time-to-convert
      .get("/conversions/time-to-convert", ({ account, query }) => getTimeToConvert(reports, account.id, query), {
        scope: "conversions:read",
        query: ConversionsQuery,
        csv: csv.csvTimeToConvert,
        detail: report(
          "getTimeToConvert",
          "Time from click to conversion",
          ComparableTimeToConvert,
          `Four buckets, the average and the median. ${COMPARE_DOC}`,
        ),
      })
  );
}
