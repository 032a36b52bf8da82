// Query parameters of the conversion reports (API_SPEC "Conversions").
import { t } from "elysia";
import { PeriodSchema } from "../journey/model";

export const INTERVALS = ["hour", "day", "week", "month"] as const;
export type Interval = (typeof INTERVALS)[number];
export const DIMENSIONS = ["device", "country", "link", "name", "variant"] as const;
export type Dimension = (typeof DIMENSIONS)[number];

const common = {
  period: t.Optional(PeriodSchema),
  domain_id: t.Optional(t.String({ format: "uuid" })),
  link_id: t.Optional(t.String({ format: "uuid" })),
};

export const ConversionsQuery = t.Object(common);
export const TimeseriesQuery = t.Object({ ...common, interval: t.Optional(t.Union(INTERVALS.map((i) => t.Literal(i)))) });
export const BreakdownQuery = t.Object({ ...common, dimension: t.Union(DIMENSIONS.map((d) => t.Literal(d))) });

export const TIME_TO_CONVERT_BUCKETS = ["under 1 hour", "1-24 hours", "1-7 days", "7+ days"] as const;
