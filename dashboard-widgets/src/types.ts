// Wire types of the public API responses the widgets read (API_SPEC.md "Resources and their fields").
// Type-only: nothing here reaches the bundle.

export type BotFilter = 'real' | 'bot' | 'all';
export type Period = '24h' | '7d' | '30d' | '90d';

export interface AnalyticsUsage {
  clicks_this_month: number;
  click_limit: number | null;
  limit_exceeded: boolean;
  tier: string;
  retention_days: number;
  cutoff_date?: string;
}

export interface AnalyticsResult<T> {
  analytics: T;
  usage: AnalyticsUsage;
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

export interface TimeseriesRow { date: string; clicks: number; unique_visitors: number }
export interface GeoRow { country_code: string; clicks: number; unique_visitors: number }
export interface DeviceRow { device_type: string; browser: string; os: string; clicks: number }
export interface ReferrerRow { referrer: string; clicks: number; unique_visitors: number }
export interface HourlyRow { hour: number; clicks: number; unique_visitors: number }

export interface FunnelStep { step_name: string; visitors: number; conversion_rate: number }
export interface Funnel { steps: FunnelStep[]; total_visitors: number }

export interface ConversionSummary {
  total_conversions: number;
  unique_converters: number;
  total_revenue: number;
  average_order_value: number;
  conversion_rate: number;
}
export interface ConversionPoint { timestamp: string; conversions: number; revenue: number }
export interface TimeToConvert {
  buckets: { label: string; count: number }[];
  average_seconds: number;
  median_seconds: number;
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

export interface LinkListItem { id: string; short_url: string; original_url: string; title?: string | null }

/** Failure bodies: object form, or the string form used by the rate limiter. */
export type ErrorBody =
  | { success: false; error: { code: string; message: string; details?: Record<string, unknown> } }
  | { success: false; error: string; message: string };
