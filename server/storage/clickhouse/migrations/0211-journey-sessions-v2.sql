-- journey_sessions_v2 replaces journey_sessions (migration 0200) for the sessions list and the
-- summary's sessions. A session's first and last events are kept as (time, page URL[, visitor]) tuples
-- with min and max, so events of the same millisecond are ordered by URL (then visitor id) and the
-- entry page, exit page and visitor never depend on the order in which parts were written or merged
-- (argMin/argMax states kept whichever tied value they met first); `started` and `ended` repeat the
-- times alone, for the reads that need nothing else (the summary). Once merged a session is one row;
-- readers merge its rows (FINAL or GROUP BY) before filtering on them, as a session's rows may still be
-- in several parts.
CREATE TABLE IF NOT EXISTS {{db}}.journey_sessions_v2 {{on_cluster}} (
  account_id UUID,
  link_id UUID,
  session_id String,
  started SimpleAggregateFunction(min, DateTime64(3, 'UTC')),
  ended SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
  first_event SimpleAggregateFunction(min, Tuple(DateTime64(3, 'UTC'), String, String)),
  last_event SimpleAggregateFunction(max, Tuple(DateTime64(3, 'UTC'), String)),
  events SimpleAggregateFunction(sum, UInt64),
  page_views SimpleAggregateFunction(sum, UInt64),
  conversions SimpleAggregateFunction(sum, UInt64),
  device SimpleAggregateFunction(max, String),
  country SimpleAggregateFunction(max, String)
) ENGINE = {{replicated}}AggregatingMergeTree
ORDER BY (account_id, link_id, session_id)
TTL toDateTime(ended) + INTERVAL 1825 DAY
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_sessions_v2_mv {{on_cluster}} TO {{db}}.journey_sessions_v2 AS
SELECT account_id, link_id, session_id, min(timestamp) AS started, max(timestamp) AS ended,
  min((timestamp, page_url, visitor_id)) AS first_event, max((timestamp, page_url)) AS last_event,
  count() AS events, countIf(event_type = 'page_view') AS page_views, countIf(event_type = 'conversion') AS conversions,
  max(toString(device_type)) AS device, max(toString(country_code)) AS country
FROM {{db}}.journey_events
WHERE session_id != ''
GROUP BY account_id, link_id, session_id;

-- Backfill from events stored before this migration (it runs before any spool flush).
INSERT INTO {{db}}.journey_sessions_v2
SELECT account_id, link_id, session_id, min(timestamp), max(timestamp),
  min((timestamp, page_url, visitor_id)), max((timestamp, page_url)),
  count(), countIf(event_type = 'page_view'), countIf(event_type = 'conversion'),
  max(toString(device_type)), max(toString(country_code))
FROM {{db}}.journey_events
WHERE session_id != '' AND (SELECT count() FROM {{db}}.journey_sessions_v2) = 0
GROUP BY account_id, link_id, session_id;

DROP VIEW IF EXISTS {{db}}.journey_sessions_mv {{on_cluster}};

DROP TABLE IF EXISTS {{db}}.journey_sessions {{on_cluster}};
