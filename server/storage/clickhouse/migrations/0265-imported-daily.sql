-- Daily aggregates imported from an analytics product's export (Plausible's imported_*.csv files), one
-- row per (account, link, kind of figure, day, dimension value): kind is the file (visitors, sources,
-- pages, entry_pages, exit_pages, custom_events, locations, devices, browsers, operating_systems),
-- dimension its main value (the page, the source, the goal's name…; empty for visitors) and detail the
-- rest of its key as JSON (utm_*, region and city, the browser's version…). Kept apart from every table
-- of our own: reports show them beside, never inside, the exact counts. A re-import of the same file (or
-- of a later export overlapping it) replaces rather than doubles: ReplacingMergeTree on the whole key,
-- the latest import winning, read with FINAL. No TTL: the history someone brings is older than our
-- retention by nature.
CREATE TABLE IF NOT EXISTS {{db}}.imported_daily {{on_cluster}} (
  account_id UUID,
  link_id UUID,
  source LowCardinality(String),
  kind LowCardinality(String),
  day Date,
  dimension String,
  detail String,
  visitors UInt64,
  visits UInt64,
  pageviews UInt64,
  bounces UInt64,
  visit_duration UInt64,
  events UInt64,
  import_id UUID,
  imported_at DateTime64(3, 'UTC')
) ENGINE = {{replicated}}ReplacingMergeTree(imported_at)
PARTITION BY toYear(day)
ORDER BY (account_id, link_id, source, kind, day, dimension, detail);
