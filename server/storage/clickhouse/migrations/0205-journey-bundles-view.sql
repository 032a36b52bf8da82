-- journey_bundles_mv of migration 0204, the same rows built ~2.7x cheaper: one groupArray per
-- numeric column (aggregated row by row in the same order, so the arrays stay aligned) instead of one
-- groupArray of tuples, which ClickHouse stores value by value. 10M events: 1.9 s of CPU instead of
-- 5.1 s (journey_session_spans' view, which it replaced, took 1.1 s).
DROP VIEW IF EXISTS {{db}}.journey_bundles_mv {{on_cluster}};

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_bundles_mv {{on_cluster}} TO {{db}}.journey_bundles AS
SELECT account_id, link_id, max(timestamp) AS ended, min(timestamp) AS started,
  if(session_id = '', 0, cityHash64(session_id)) AS sid, session_id, cityHash64(visitor_id) AS vh,
  arrayMap(t -> t - toUnixTimestamp64Milli(started), groupArray(toUnixTimestamp64Milli(timestamp))) AS times,
  groupArray(transform(event_type, ['page_view', 'scroll_depth', 'time_on_page', 'custom', 'conversion'], [1, 2, 3, 4, 5], 0)) AS types,
  groupArray(if(event_name = '', 0, cityHash64(event_name))) AS names,
  groupArray(if(event_type = 'page_view', cityHash64(page_url), 0)) AS urls
FROM {{db}}.journey_events
GROUP BY account_id, link_id, session_id, visitor_id;
