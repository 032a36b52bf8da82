-- Clicks imported from another product's raw log (YOURLS' yourls_log, our own GET /exports/clicks), dated
-- when they happened. A table of their own rather than rows of `clicks`: nothing of the click reports'
-- views (clicks_daily…, visitor counts, bot filters) can count them by mistake, a visitor hash cannot be
-- computed for them (we never saw the address), and a re-import replaces rather than doubles
-- (ReplacingMergeTree on the click's key in the source, plus the import's insert token). No TTL: the
-- history someone brings is older than our retention by nature, and reports read it only as a total.
CREATE TABLE IF NOT EXISTS {{db}}.imported_clicks {{on_cluster}} (
  account_id UUID,
  link_id UUID,
  source LowCardinality(String),
  click_key String,
  timestamp DateTime64(3, 'UTC'),
  referrer String,
  country_code LowCardinality(String),
  device_type LowCardinality(String),
  browser LowCardinality(String),
  os LowCardinality(String),
  is_bot UInt8,
  import_id UUID
) ENGINE = {{replicated}}ReplacingMergeTree
PARTITION BY toYYYYMM(timestamp)
ORDER BY (account_id, link_id, source, click_key)
SETTINGS non_replicated_deduplication_window = 10000;
