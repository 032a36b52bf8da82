-- Every journey visitor count now comes from journey_visitor_latest (migration 0212), so the rollups
-- stop computing the `uniq` and `uniqCombined(14)` visitor, session and converter states no report
-- reads any more (hashing every visitor id three or four more times per insert), and the breakdown
-- rollup takes only conversions (its other rows carried only those states). The columns stay, with
-- the states already stored; new rows get empty states. journey_visitors_hourly and _daily (migration
-- 0208) keep taking their event counts from journey_hourly's inserts.
DROP VIEW IF EXISTS {{db}}.journey_hourly_mv {{on_cluster}};

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_hourly_mv {{on_cluster}} TO {{db}}.journey_hourly AS
SELECT account_id, link_id, toStartOfHour(timestamp) AS hour,
  count() AS events,
  countIf(event_type = 'conversion') AS conversions,
  sumIf(revenue_cents, event_type = 'conversion') AS revenue_cents
FROM {{db}}.journey_events
GROUP BY account_id, link_id, hour;

DROP VIEW IF EXISTS {{db}}.journey_dims_hourly_mv {{on_cluster}};

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_dims_hourly_mv {{on_cluster}} TO {{db}}.journey_dims_hourly AS
SELECT account_id, d.1 AS dimension, d.2 AS label, toStartOfHour(timestamp) AS hour, link_id,
  count() AS conversions, sum(revenue_cents) AS revenue_cents
FROM {{db}}.journey_events
ARRAY JOIN [
  ('device', toString(device_type)),
  ('country', toString(country_code)),
  ('name', if(conversion_name != '', conversion_name, event_name))
] AS d
WHERE event_type = 'conversion'
GROUP BY account_id, dimension, label, hour, link_id;
