-- Per insert block, each session's first and last event time, keyed by the last: the sessions list
-- finds its newest sessions and the period's session count from the key instead of merging every
-- session of the link, and the average duration groups by a UInt64 hash. Rows are never merged, so
-- a session split across blocks has several rows (readers take min/max per session).
CREATE TABLE IF NOT EXISTS {{db}}.journey_session_spans {{on_cluster}} (
  account_id UUID,
  link_id UUID,
  ended DateTime64(3, 'UTC'),
  started DateTime64(3, 'UTC'),
  sid UInt64,
  session_id String
) ENGINE = {{replicated}}MergeTree
PARTITION BY toYYYYMM(ended)
ORDER BY (account_id, link_id, ended)
TTL toDateTime(ended) + INTERVAL 1825 DAY
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_session_spans_mv {{on_cluster}} TO {{db}}.journey_session_spans AS
SELECT account_id, link_id, max(timestamp) AS ended, min(timestamp) AS started, cityHash64(session_id) AS sid, session_id
FROM {{db}}.journey_events
WHERE session_id != ''
GROUP BY account_id, link_id, session_id;

-- Per insert block, each converting (link, visitor)'s first conversion, keyed by its time: time to
-- convert reads only the candidates of the period, then checks them against journey_first_touch.
CREATE TABLE IF NOT EXISTS {{db}}.journey_conversion_times {{on_cluster}} (
  account_id UUID,
  converted_at DateTime64(3, 'UTC'),
  link_id UUID,
  visitor_id String
) ENGINE = {{replicated}}MergeTree
PARTITION BY toYYYYMM(converted_at)
ORDER BY (account_id, converted_at)
TTL toDateTime(converted_at) + INTERVAL 1825 DAY
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_conversion_times_mv {{on_cluster}} TO {{db}}.journey_conversion_times AS
SELECT account_id, min(timestamp) AS converted_at, link_id, visitor_id
FROM {{db}}.journey_events
WHERE event_type = 'conversion'
GROUP BY account_id, link_id, visitor_id;

-- Backfill from events stored before this migration (it runs before any spool flush).
INSERT INTO {{db}}.journey_session_spans
SELECT account_id, link_id, max(timestamp), min(timestamp), cityHash64(session_id), session_id
FROM {{db}}.journey_events WHERE session_id != '' GROUP BY account_id, link_id, session_id;

INSERT INTO {{db}}.journey_conversion_times
SELECT account_id, min(timestamp), link_id, visitor_id
FROM {{db}}.journey_events WHERE event_type = 'conversion' GROUP BY account_id, link_id, visitor_id;
