// Query parameters of the conversion reports (docs/api.md "Conversions").
import { t } from "elysia";
import type { TSchema } from "@sinclair/typebox";
import { StrictQuery } from "../http/strict-query";
import { PeriodSchema } from "../journey/model";
import { CompareParam, ComparisonOf, comparable } from "../reports/compare-model";

export const INTERVALS = ["hour", "day", "week", "month"] as const;
export type Interval = (typeof INTERVALS)[number];
export const DIMENSIONS = ["device", "country", "link", "name", "variant"] as const;
export type Dimension = (typeof DIMENSIONS)[number];

const common = {
  period: t.Optional(PeriodSchema),
  domain_id: t.Optional(t.String({ format: "uuid" })),
  link_id: t.Optional(t.String({ format: "uuid" })),
};

/** Every conversion report but attribution takes `compare`. */
export const ConversionsQuery = StrictQuery({ ...common, compare: CompareParam });
export const TimeseriesQuery = StrictQuery({
  ...common,
  compare: CompareParam,
  interval: t.Optional(t.Union(INTERVALS.map((i) => t.Literal(i)))),
});
export const BreakdownQuery = StrictQuery({ ...common, compare: CompareParam, dimension: t.Union(DIMENSIONS.map((d) => t.Literal(d))) });

export const TIME_TO_CONVERT_BUCKETS = ["under 1 hour", "1-24 hours", "1-7 days", "7+ days"] as const;

// Responses of the four reports; the tests check every answer against these.
const Count = t.Integer({ minimum: 0 });
const Money = t.Number({ minimum: 0, description: "In currency units (revenue_cents / 100)" });
const Percent = t.Number({ minimum: 0, description: "Percent" });
const strict = { additionalProperties: false } as const;
const ImportedConversions = t.Object(
  {
    source: t.String({ description: "The product the figures come from (plausible)" }),
    from: t.String({ format: "date", description: "The first imported day with a goal (the source's time zone)" }),
    to: t.String({ format: "date", description: "The last one shown" }),
    own_data_from: t.Union([t.String({ format: "date" }), t.Null()], {
      description: "The day (UTC) of the link's first own journey event; imported days from then on are not shown",
    }),
    conversions: t.Integer({ minimum: 0, description: "Goals completed (the source's custom events)" }),
    converters: t.Integer({ minimum: 0, description: "Their visitors, summed over days and goals (the source counts them per day)" }),
    by_goal: t.Array(t.Object({ name: t.String(), conversions: t.Integer({ minimum: 0 }) }, strict), {
      description: "Goals completed per goal, most first: the imported counterpart of the breakdown by `name`",
    }),
    daily: t.Array(t.Object({ date: t.String({ format: "date" }), conversions: t.Integer({ minimum: 0 }) }, strict), {
      description: "Goals completed per imported day with any, oldest first: the imported counterpart of the timeseries",
    }),
  },
  {
    $id: "ImportedConversions",
    description:
      "Only with link_id, when the link has some: its custom events (goals) imported from another product (POST /imports, a Plausible export), for the days before its first own event, whatever the period. Never part of the totals above",
    ...strict,
  },
);

export const ConversionSummary = t.Object(
  {
    total_conversions: Count,
    unique_converters: t.Integer({
      minimum: 0,
      description: "Distinct visitor_ids that converted, each counted once in the period: a visitor_id is the site's own stable id.",
    }),
    total_revenue: Money,
    average_order_value: Money,
    conversion_rate: t.Number({ minimum: 0, description: "Converters per visitor of the scope's links, in percent" }),
    imported: t.Optional(ImportedConversions),
  },
  { $id: "ConversionSummary", ...strict },
);
export const ConversionPoint = t.Object(
  { timestamp: t.String({ format: "date-time", description: "Start of the bucket (UTC)" }), conversions: Count, revenue: Money },
  { $id: "ConversionPoint", ...strict },
);
export const ConversionBreakdownRow = t.Object(
  {
    label: t.String({ description: "`unknown` when the dimension is empty" }),
    conversions: Count,
    revenue: Money,
    conversion_rate: Percent,
  },
  { $id: "ConversionBreakdownRow", ...strict },
);
export const TimeToConvert = t.Object(
  {
    buckets: t.Array(t.Object({ label: t.Union(TIME_TO_CONVERT_BUCKETS.map((b) => t.Literal(b))), count: Count }, strict)),
    average_seconds: t.Number({ minimum: 0 }),
    median_seconds: t.Number({ minimum: 0 }),
  },
  { $id: "TimeToConvert", ...strict },
);

export const ComparableConversionSummary = comparable(ConversionSummary, "ComparableConversionSummary", undefined, ["imported"]);
export const ComparableTimeToConvert = comparable(
  TimeToConvert,
  "ComparableTimeToConvert",
  "average_seconds and median_seconds, and each bucket's count under its label",
);

/**
 * A list report's answer: the bare list, or with `compare` the list under `analytics` and `comparison`
 * beside it (the click list reports' shape, without their click `usage`); existing clients that never
 * send `compare` keep the list.
 */
const comparableList = (row: TSchema, id: string) =>
  t.Union(
    [
      t.Array(row),
      t.Object(
        {
          analytics: t.Array(row),
          comparison: ComparisonOf(t.Array(row), "conversions and revenue: the sums of the rows"),
        },
        { $id: `Compared${id}`, ...strict },
      ),
    ],
    { description: "Without `compare`, the list; with it, `{ analytics, comparison }`" },
  );
export const ComparableConversionTimeseries = comparableList(ConversionPoint, "ConversionTimeseries");
export const ComparableConversionBreakdown = comparableList(ConversionBreakdownRow, "ConversionBreakdown");
