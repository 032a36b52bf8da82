-- Rollups of journey_events for the journey and conversion reports (raw scans of 10M events are too
-- slow for the 150 ms target). Periods are whole UTC hours, so hourly rollups answer them exactly;
-- unique counts use `uniq` (exact up to 65,536 distinct values per state, about 1% error beyond).
-- Every target keeps a deduplication window: a spool replay (same insert_deduplication_token,
-- deduplicate_blocks_in_dependent_materialized_views = 1) adds nothing twice here either.

-- Totals per link and hour: events, visitors, sessions, conversions, converters, revenue.
CREATE TABLE IF NOT EXISTS {{db}}.journey_hourly {{on_cluster}} (
  account_id UUID,
  link_id UUID,
  hour DateTime('UTC'),
  events SimpleAggregateFunction(sum, UInt64),
  conversions SimpleAggregateFunction(sum, UInt64),
  revenue_cents SimpleAggregateFunction(sum, Int64),
  visitors AggregateFunction(uniq, String),
  sessions AggregateFunction(uniq, Nullable(String)),
  converters AggregateFunction(uniq, Nullable(String))
) ENGINE = {{replicated}}AggregatingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (account_id, link_id, hour)
TTL hour + INTERVAL 1825 DAY
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_hourly_mv {{on_cluster}} TO {{db}}.journey_hourly AS
SELECT account_id, link_id, toStartOfHour(timestamp) AS hour,
  count() AS events,
  countIf(event_type = 'conversion') AS conversions,
  sumIf(revenue_cents, event_type = 'conversion') AS revenue_cents,
  uniqState(visitor_id) AS visitors,
  uniqState(nullIf(session_id, '')) AS sessions,
  uniqState(if(event_type = 'conversion', visitor_id, NULL)) AS converters
FROM {{db}}.journey_events
GROUP BY account_id, link_id, hour;

-- Conversion breakdowns (device, country, conversion name) per hour and link.
CREATE TABLE IF NOT EXISTS {{db}}.journey_dims_hourly {{on_cluster}} (
  account_id UUID,
  dimension LowCardinality(String),
  label String,
  hour DateTime('UTC'),
  link_id UUID,
  conversions SimpleAggregateFunction(sum, UInt64),
  revenue_cents SimpleAggregateFunction(sum, Int64),
  visitors AggregateFunction(uniq, String),
  converters AggregateFunction(uniq, Nullable(String))
) ENGINE = {{replicated}}AggregatingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (account_id, dimension, hour, link_id, label)
TTL hour + INTERVAL 1825 DAY
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_dims_hourly_mv {{on_cluster}} TO {{db}}.journey_dims_hourly AS
SELECT account_id, d.1 AS dimension, d.2 AS label, toStartOfHour(timestamp) AS hour, link_id,
  countIf(event_type = 'conversion') AS conversions,
  sumIf(revenue_cents, event_type = 'conversion') AS revenue_cents,
  uniqState(visitor_id) AS visitors,
  uniqState(if(event_type = 'conversion', visitor_id, NULL)) AS converters
FROM {{db}}.journey_events
ARRAY JOIN [
  ('device', toString(device_type)),
  ('country', toString(country_code)),
  ('name', if(event_type = 'conversion', if(conversion_name != '', conversion_name, event_name), ''))
] AS d
WHERE d.1 != 'name' OR event_type = 'conversion'
GROUP BY account_id, dimension, label, hour, link_id;

-- Top pages (page views by URL) and top events (by event_name) per link and hour.
CREATE TABLE IF NOT EXISTS {{db}}.journey_tops_hourly {{on_cluster}} (
  account_id UUID,
  link_id UUID,
  kind LowCardinality(String),
  hour DateTime('UTC'),
  value String,
  count UInt64
) ENGINE = {{replicated}}SummingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (account_id, link_id, kind, hour, value)
TTL hour + INTERVAL 1825 DAY
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_tops_hourly_mv {{on_cluster}} TO {{db}}.journey_tops_hourly AS
SELECT account_id, link_id, t.1 AS kind, toStartOfHour(timestamp) AS hour, t.2 AS value, count() AS count
FROM {{db}}.journey_events
ARRAY JOIN arrayFilter(x -> x.2 != '', [('page', if(event_type = 'page_view', page_url, '')), ('event', event_name)]) AS t
GROUP BY account_id, link_id, kind, hour, value;

-- One row per session (merged on read): the sessions list and the average session duration.
CREATE TABLE IF NOT EXISTS {{db}}.journey_sessions {{on_cluster}} (
  account_id UUID,
  link_id UUID,
  session_id String,
  started SimpleAggregateFunction(min, DateTime64(3, 'UTC')),
  ended SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
  events SimpleAggregateFunction(sum, UInt64),
  page_views SimpleAggregateFunction(sum, UInt64),
  conversions SimpleAggregateFunction(sum, UInt64),
  visitor AggregateFunction(argMin, String, DateTime64(3, 'UTC')),
  entry_page AggregateFunction(argMin, String, DateTime64(3, 'UTC')),
  exit_page AggregateFunction(argMax, String, DateTime64(3, 'UTC')),
  device SimpleAggregateFunction(max, String),
  country SimpleAggregateFunction(max, String)
) ENGINE = {{replicated}}AggregatingMergeTree
ORDER BY (account_id, link_id, session_id)
TTL toDateTime(ended) + INTERVAL 1825 DAY
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_sessions_mv {{on_cluster}} TO {{db}}.journey_sessions AS
SELECT account_id, link_id, session_id,
  min(timestamp) AS started, max(timestamp) AS ended, count() AS events,
  countIf(event_type = 'page_view') AS page_views, countIf(event_type = 'conversion') AS conversions,
  argMinState(visitor_id, timestamp) AS visitor,
  argMinState(page_url, timestamp) AS entry_page, argMaxState(page_url, timestamp) AS exit_page,
  max(toString(device_type)) AS device, max(toString(country_code)) AS country
FROM {{db}}.journey_events
WHERE session_id != ''
GROUP BY account_id, link_id, session_id;

-- Each visitor's first journey event on a link (time to convert without a click).
CREATE TABLE IF NOT EXISTS {{db}}.journey_first_touch {{on_cluster}} (
  account_id UUID,
  link_id UUID,
  visitor_id String,
  first_at SimpleAggregateFunction(min, DateTime64(3, 'UTC'))
) ENGINE = {{replicated}}AggregatingMergeTree
ORDER BY (account_id, link_id, visitor_id)
TTL toDateTime(first_at) + INTERVAL 1825 DAY
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_first_touch_mv {{on_cluster}} TO {{db}}.journey_first_touch AS
SELECT account_id, link_id, visitor_id, min(timestamp) AS first_at
FROM {{db}}.journey_events
GROUP BY account_id, link_id, visitor_id;

-- Backfill from events stored before this migration (it runs before any spool flush).
INSERT INTO {{db}}.journey_hourly
SELECT account_id, link_id, toStartOfHour(timestamp) AS hour, count(), countIf(event_type = 'conversion'),
  sumIf(revenue_cents, event_type = 'conversion'), uniqState(visitor_id), uniqState(nullIf(session_id, '')),
  uniqState(if(event_type = 'conversion', visitor_id, NULL))
FROM {{db}}.journey_events GROUP BY account_id, link_id, hour;

INSERT INTO {{db}}.journey_dims_hourly
SELECT account_id, d.1 AS dimension, d.2 AS label, toStartOfHour(timestamp) AS hour, link_id,
  countIf(event_type = 'conversion'), sumIf(revenue_cents, event_type = 'conversion'),
  uniqState(visitor_id), uniqState(if(event_type = 'conversion', visitor_id, NULL))
FROM {{db}}.journey_events
ARRAY JOIN [
  ('device', toString(device_type)),
  ('country', toString(country_code)),
  ('name', if(event_type = 'conversion', if(conversion_name != '', conversion_name, event_name), ''))
] AS d
WHERE d.1 != 'name' OR event_type = 'conversion'
GROUP BY account_id, dimension, label, hour, link_id;

INSERT INTO {{db}}.journey_tops_hourly
SELECT account_id, link_id, t.1 AS kind, toStartOfHour(timestamp) AS hour, t.2 AS value, count()
FROM {{db}}.journey_events
ARRAY JOIN arrayFilter(x -> x.2 != '', [('page', if(event_type = 'page_view', page_url, '')), ('event', event_name)]) AS t
GROUP BY account_id, link_id, kind, hour, value;

INSERT INTO {{db}}.journey_sessions
SELECT account_id, link_id, session_id, min(timestamp), max(timestamp), count(),
  countIf(event_type = 'page_view'), countIf(event_type = 'conversion'),
  argMinState(visitor_id, timestamp), argMinState(page_url, timestamp), argMaxState(page_url, timestamp),
  max(toString(device_type)), max(toString(country_code))
FROM {{db}}.journey_events WHERE session_id != '' GROUP BY account_id, link_id, session_id;

INSERT INTO {{db}}.journey_first_touch
SELECT account_id, link_id, visitor_id, min(timestamp) FROM {{db}}.journey_events GROUP BY account_id, link_id, visitor_id;
