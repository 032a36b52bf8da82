// Every table and view the ClickHouse migrations create, by name: `ch.table(name)` takes only these, so a
// misspelled name fails the type check. test/storage/clickhouse-tables.test.ts checks the list against
// what the migrations really create; a migration that adds or drops a table updates it.
export const CLICKHOUSE_TABLES = [
  "schema_migrations",
  // Clicks (migrations 0001, 0100, 0220, 0221) and their rollups.
  "clicks",
  "clicks_daily",
  "clicks_daily_mv",
  "clicks_hourly",
  "clicks_hourly_mv",
  "clicks_daily_links",
  "clicks_daily_links_mv",
  "clicks_daily_geo",
  "clicks_daily_geo_mv",
  "clicks_daily_devices",
  "clicks_daily_devices_mv",
  "clicks_daily_referrers",
  "clicks_daily_referrers_mv",
  "clicks_daily_targets",
  "click_visitor_days",
  "click_days_touched",
  "click_days_touched_mv",
  // Clicks imported from another product's log (migration 0260), kept out of every click report.
  "imported_clicks",
  "imported_daily",
  "clicks_daily_targets_mv",
  // Journey events (migrations 0001, 0200–0211, 0223) and their rollups.
  "journey_events",
  "journey_hourly",
  "journey_hourly_mv",
  "journey_dims_hourly",
  "journey_dims_hourly_mv",
  "journey_tops_hourly",
  "journey_tops_hourly_mv",
  "journey_tops_daily",
  "journey_tops_daily_mv",
  "journey_sessions_v2",
  "journey_sessions_v2_mv",
  "journey_first_touch",
  "journey_first_touch_mv",
  "journey_conversion_times",
  "journey_conversion_times_mv",
  "journey_event_bundles",
  "journey_event_bundles_mv",
  "journey_named_view_days",
  "journey_named_view_days_mv",
  "journey_visitors_hourly",
  "journey_visitors_hourly_mv",
  "journey_visitors_daily",
  "journey_visitors_daily_mv",
  // Visitor and converter counts of closed periods, written by the journey job; visitors by hour (migration 0230).
  "journey_closed_days",
  "journey_visitor_hours",
  "journey_visitor_hours_mv",
  // Per-visitor funnel states of closed days and their level counts, written by the journey job (migration 0250).
  "journey_funnel_states",
  "journey_funnel_ranges",
  // Per-visitor retention state of closed hours, written by the journey job (migration 0275).
  "journey_retention_states",
  "journey_retention_ranges",
  // The answers of compared windows (compare=previous|year), written by the reports (migration 0290).
  "compared_windows",
  // Per-visitor paths of closed hours, written by the journey job (migration 0280).
  "journey_path_states",
  "journey_path_ranges",
] as const;

export type ClickhouseTable = (typeof CLICKHOUSE_TABLES)[number];
