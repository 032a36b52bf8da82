-- Raw clicks (one row per served redirect, enriched by the click pipeline) and journey events.
-- non_replicated_deduplication_window lets spool replays (same insert_deduplication_token) insert nothing twice.
CREATE TABLE IF NOT EXISTS {{db}}.clicks {{on_cluster}} (
  click_id UUID,
  timestamp DateTime64(3, 'UTC'),
  account_id UUID,
  link_id UUID,
  domain LowCardinality(String),
  visitor_hash UInt64,
  is_bot UInt8,
  bot_kind LowCardinality(String),
  device_type LowCardinality(String),
  browser LowCardinality(String),
  browser_version String,
  os LowCardinality(String),
  os_version String,
  country_code LowCardinality(String),
  region String,
  city String,
  referrer String,
  referrer_url String,
  language LowCardinality(String),
  query String
) ENGINE = {{replicated}}MergeTree
PARTITION BY toYYYYMM(timestamp)
ORDER BY (account_id, toDate(timestamp), link_id, timestamp)
TTL toDateTime(timestamp) + INTERVAL 1825 DAY
SETTINGS non_replicated_deduplication_window = 10000;

CREATE TABLE IF NOT EXISTS {{db}}.journey_events {{on_cluster}} (
  event_id UUID,
  received_at DateTime64(3, 'UTC'),
  timestamp DateTime64(3, 'UTC'),
  account_id UUID,
  link_id UUID,
  visitor_id String,
  session_id String,
  event_type LowCardinality(String),
  event_name String,
  page_url String,
  page_title String,
  scroll_percent Nullable(Float32),
  time_on_page Nullable(Float64),
  conversion_name String,
  revenue_cents Int64,
  currency LowCardinality(String),
  country_code LowCardinality(String),
  city String,
  region String,
  device_type LowCardinality(String),
  browser LowCardinality(String),
  browser_version String,
  os LowCardinality(String),
  os_version String,
  properties String
) ENGINE = {{replicated}}MergeTree
PARTITION BY toYYYYMM(timestamp)
ORDER BY (account_id, link_id, timestamp)
TTL toDateTime(timestamp) + INTERVAL 1825 DAY
SETTINGS non_replicated_deduplication_window = 10000;
