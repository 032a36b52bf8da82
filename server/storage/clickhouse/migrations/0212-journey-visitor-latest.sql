-- Exact visitor counts for the journey and conversion reports. One row per visitor (cityHash64 of
-- visitor_id) and link, and one per visitor of the account (link_id all zeros), for every label of a
-- breakdown dimension: `all` (label ''), `device`, `country`, and `name` (conversions only), with the
-- time of the visitor's latest event and latest conversion there. A report's period runs from its
-- start to now, so a visitor is in it exactly when the latest event is at or after the start: a count
-- is the number of merged rows (FINAL) whose latest event is in the period, with no distinct-count of
-- millions of hashes. Rows are merged with max(), so replays and unmerged parts change nothing. This
-- replaces the `uniq` and `uniqCombined(14)` states of migrations 0200, 0203 and 0208, which were
-- exact only for small sets.
CREATE TABLE IF NOT EXISTS {{db}}.journey_visitor_latest {{on_cluster}} (
  account_id UUID,
  dimension LowCardinality(String),
  link_id UUID,
  label String,
  vh UInt64,
  last_seen SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
  last_conversion SimpleAggregateFunction(max, DateTime64(3, 'UTC'))
) ENGINE = {{replicated}}AggregatingMergeTree
ORDER BY (account_id, dimension, link_id, label, vh)
TTL toDateTime(last_seen) + INTERVAL 1825 DAY
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_visitor_latest_mv {{on_cluster}} TO {{db}}.journey_visitor_latest AS
SELECT account_id, d.1 AS dimension, l AS link_id, d.2 AS label, cityHash64(visitor_id) AS vh,
  max(timestamp) AS last_seen, maxIf(timestamp, event_type = 'conversion') AS last_conversion
FROM {{db}}.journey_events
ARRAY JOIN [
  ('all', ''),
  ('device', toString(device_type)),
  ('country', toString(country_code)),
  ('name', if(event_type = 'conversion', if(conversion_name != '', conversion_name, event_name), ''))
] AS d
ARRAY JOIN [link_id, toUUID('00000000-0000-0000-0000-000000000000')] AS l
WHERE d.1 != 'name' OR event_type = 'conversion'
GROUP BY account_id, dimension, link_id, label, vh;

-- Backfill from events stored before this migration (it runs before any spool flush); a re-run adds
-- rows that merge into the same maxima.
INSERT INTO {{db}}.journey_visitor_latest
SELECT account_id, d.1 AS dimension, l AS link_id, d.2 AS label, cityHash64(visitor_id) AS vh,
  max(timestamp), maxIf(timestamp, event_type = 'conversion')
FROM {{db}}.journey_events
ARRAY JOIN [
  ('all', ''),
  ('device', toString(device_type)),
  ('country', toString(country_code)),
  ('name', if(event_type = 'conversion', if(conversion_name != '', conversion_name, event_name), ''))
] AS d
ARRAY JOIN [link_id, toUUID('00000000-0000-0000-0000-000000000000')] AS l
WHERE d.1 != 'name' OR event_type = 'conversion'
GROUP BY account_id, dimension, link_id, label, vh;
