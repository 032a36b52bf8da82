-- Per insert batch, each (link, session, visitor)'s events as compact arrays, ordered by the last
-- event's time. It replaces journey_session_spans (the same first/last time and session hash, so the
-- sessions list and the session count and duration read it the same way) and gives the funnel the
-- events of a period grouped by visitor without hashing every event: a period's bundles are about
-- as many as its sessions. Events without a session have sid 0. Per event: `times` (ms after
-- `started`), `types` (1-based index in the list below; server/journey/funnel-query.ts keeps the same
-- list), `names` (cityHash64 of event_name, 0 when empty) and `urls` (cityHash64 of a page view's
-- page_url, else 0); the arrays are aligned.
CREATE TABLE IF NOT EXISTS {{db}}.journey_bundles {{on_cluster}} (
  account_id UUID,
  link_id UUID,
  ended DateTime64(3, 'UTC'),
  started DateTime64(3, 'UTC'),
  sid UInt64,
  session_id String,
  vh UInt64,
  times Array(Int64) CODEC(T64, LZ4),
  types Array(UInt8),
  names Array(UInt64),
  urls Array(UInt64)
) ENGINE = {{replicated}}MergeTree
PARTITION BY toYYYYMM(ended)
ORDER BY (account_id, link_id, ended)
TTL toDateTime(ended) + INTERVAL 1825 DAY
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_bundles_mv {{on_cluster}} TO {{db}}.journey_bundles AS
SELECT account_id, link_id, ended, started, sid, session_id, vh,
  arrayMap(t -> t - toUnixTimestamp64Milli(started), evs.1) AS times, evs.2 AS types, evs.3 AS names, evs.4 AS urls
FROM (
  SELECT account_id, link_id, max(timestamp) AS ended, min(timestamp) AS started,
    if(session_id = '', 0, cityHash64(session_id)) AS sid, session_id, cityHash64(visitor_id) AS vh,
    groupArray((toUnixTimestamp64Milli(timestamp),
      toUInt8(indexOf(['page_view', 'scroll_depth', 'time_on_page', 'custom', 'conversion'], event_type)),
      if(event_name = '', 0, cityHash64(event_name)),
      if(event_type = 'page_view', cityHash64(page_url), 0))) AS evs
  FROM {{db}}.journey_events
  GROUP BY account_id, link_id, session_id, visitor_id
);

-- Backfill from events stored before this migration (it runs before any spool flush).
INSERT INTO {{db}}.journey_bundles
SELECT account_id, link_id, ended, started, sid, session_id, vh,
  arrayMap(t -> t - toUnixTimestamp64Milli(started), evs.1) AS times, evs.2 AS types, evs.3 AS names, evs.4 AS urls
FROM (
  SELECT account_id, link_id, max(timestamp) AS ended, min(timestamp) AS started,
    if(session_id = '', 0, cityHash64(session_id)) AS sid, session_id, cityHash64(visitor_id) AS vh,
    groupArray((toUnixTimestamp64Milli(timestamp),
      toUInt8(indexOf(['page_view', 'scroll_depth', 'time_on_page', 'custom', 'conversion'], event_type)),
      if(event_name = '', 0, cityHash64(event_name)),
      if(event_type = 'page_view', cityHash64(page_url), 0))) AS evs
  FROM {{db}}.journey_events
  WHERE (SELECT count() FROM {{db}}.journey_bundles) = 0
  GROUP BY account_id, link_id, session_id, visitor_id
);

DROP VIEW IF EXISTS {{db}}.journey_session_spans_mv {{on_cluster}};

DROP TABLE IF EXISTS {{db}}.journey_session_spans {{on_cluster}};
