// Wire types of the public API responses the widgets read (docs/api.md; the OpenAPI document has every field).
// Type-only: nothing here reaches the bundle.

export type BotFilter = "real" | "bot" | "all";
export type Period = "24h" | "7d" | "30d" | "90d";

// The analytics shapes are the server's own (written once; type-only, so nothing reaches the bundle).
import type { AnalyticsUsage } from "../../server/analytics/model";
export type {
  AnalyticsUsage,
  SummaryRow,
  TimeseriesRow,
  GeoRow,
  DeviceRow,
  ReferrerRow,
  HourlyRow,
  LinkStats,
} from "../../server/analytics/model";

export interface AnalyticsResult<T> {
  analytics: T;
  usage: AnalyticsUsage;
}

export interface FunnelStep {
  step_name: string;
  visitors: number;
  conversion_rate: number;
}
export interface Funnel {
  steps: FunnelStep[];
  total_visitors: number;
}

// The insight reports are the server's own shapes too (type-only).
export type { PathsReport, RetentionReport } from "../../server/insights/model";
export type { AttributionReport } from "../../server/conversions/attribution-model";
export type { Realtime } from "../../server/realtime/model";
export interface Comparison<T> {
  compare: "previous" | "year";
  from: string;
  to: string;
  data: T;
  change: Record<string, { current: number; previous: number; change_percent: number | null }>;
}
export type Compared<T> = T & { comparison?: Comparison<T> };

export interface ConversionSummary {
  total_conversions: number;
  unique_converters: number;
  total_revenue: number;
  average_order_value: number;
  conversion_rate: number;
}
export interface ConversionPoint {
  timestamp: string;
  conversions: number;
  revenue: number;
}
export interface TimeToConvert {
  buckets: { label: string; count: number }[];
  average_seconds: number;
  median_seconds: number;
}

export interface LinkListItem {
  id: string;
  short_url: string;
  original_url: string;
  title?: string | null;
}

/** Failure bodies: object form, or the string form used by the rate limiter. */
export type ErrorBody =
  | { success: false; error: { code: string; message: string; details?: Record<string, unknown> } }
  | { success: false; error: string; message: string };
