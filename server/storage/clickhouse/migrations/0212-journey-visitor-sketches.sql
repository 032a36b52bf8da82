-- Journey visitor and converter counts: uniqCombined64(17) states over cityHash64(visitor_id), the
-- estimator of every visitor count (docs/accuracy.md): a state keeps the hashes themselves up to 4,095
-- of them, then becomes a bias-corrected HyperLogLog of 2^17 registers. Reports count exactly from the
-- event bundles instead when a state says the set is small enough to count cheaply, so the states
-- mostly decide which. They replace the `uniq` and `uniqCombined(14)` states of migrations 0200, 0203
-- and 0208 (32-bit hashes, 1-3% off beyond a few thousand visitors), which the views stop computing;
-- the breakdown rollup keeps device and country rows of every event (their visitors) and name rows of
-- conversions. The backfill adds rows with only the new states (every sum adds 0, and a state merged
-- twice is unchanged, so a re-run is harmless); journey_hourly's views copy them into the hourly and
-- daily tables of migration 0208.
ALTER TABLE {{db}}.journey_hourly {{on_cluster}}
  ADD COLUMN IF NOT EXISTS visitors64 AggregateFunction(uniqCombined64(17), UInt64),
  ADD COLUMN IF NOT EXISTS converters64 AggregateFunction(uniqCombined64(17), UInt64);
ALTER TABLE {{db}}.journey_visitors_hourly {{on_cluster}}
  ADD COLUMN IF NOT EXISTS visitors64 AggregateFunction(uniqCombined64(17), UInt64),
  ADD COLUMN IF NOT EXISTS converters64 AggregateFunction(uniqCombined64(17), UInt64);
ALTER TABLE {{db}}.journey_visitors_daily {{on_cluster}}
  ADD COLUMN IF NOT EXISTS visitors64 AggregateFunction(uniqCombined64(17), UInt64),
  ADD COLUMN IF NOT EXISTS converters64 AggregateFunction(uniqCombined64(17), UInt64);
ALTER TABLE {{db}}.journey_dims_hourly {{on_cluster}}
  ADD COLUMN IF NOT EXISTS visitors64 AggregateFunction(uniqCombined64(17), UInt64),
  ADD COLUMN IF NOT EXISTS converters64 AggregateFunction(uniqCombined64(17), UInt64);

DROP VIEW IF EXISTS {{db}}.journey_hourly_mv {{on_cluster}};
CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_hourly_mv {{on_cluster}} TO {{db}}.journey_hourly AS
SELECT account_id, link_id, toStartOfHour(timestamp) AS hour,
  count() AS events,
  countIf(event_type = 'conversion') AS conversions,
  sumIf(revenue_cents, event_type = 'conversion') AS revenue_cents,
  uniqCombined64State(17)(cityHash64(visitor_id)) AS visitors64,
  uniqCombined64StateIf(17)(cityHash64(visitor_id), event_type = 'conversion') AS converters64
FROM {{db}}.journey_events
GROUP BY account_id, link_id, hour;

DROP VIEW IF EXISTS {{db}}.journey_visitors_hourly_mv {{on_cluster}};
CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_visitors_hourly_mv {{on_cluster}} TO {{db}}.journey_visitors_hourly AS
SELECT account_id, link_id, hour, events, visitors64, converters64 FROM {{db}}.journey_hourly;

DROP VIEW IF EXISTS {{db}}.journey_visitors_daily_mv {{on_cluster}};
CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_visitors_daily_mv {{on_cluster}} TO {{db}}.journey_visitors_daily AS
SELECT account_id, link_id, toDate(hour) AS day, sum(events) AS events,
  uniqCombined64MergeState(17)(visitors64) AS visitors64, uniqCombined64MergeState(17)(converters64) AS converters64
FROM {{db}}.journey_hourly
GROUP BY account_id, link_id, day;

DROP VIEW IF EXISTS {{db}}.journey_dims_hourly_mv {{on_cluster}};
CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_dims_hourly_mv {{on_cluster}} TO {{db}}.journey_dims_hourly AS
SELECT account_id, d.1 AS dimension, d.2 AS label, toStartOfHour(timestamp) AS hour, link_id,
  countIf(event_type = 'conversion') AS conversions,
  sumIf(revenue_cents, event_type = 'conversion') AS revenue_cents,
  uniqCombined64State(17)(cityHash64(visitor_id)) AS visitors64,
  uniqCombined64StateIf(17)(cityHash64(visitor_id), event_type = 'conversion') AS converters64
FROM {{db}}.journey_events
ARRAY JOIN [
  ('device', toString(device_type)),
  ('country', toString(country_code)),
  ('name', if(event_type = 'conversion', if(conversion_name != '', conversion_name, event_name), ''))
] AS d
WHERE d.1 != 'name' OR event_type = 'conversion'
GROUP BY account_id, dimension, label, hour, link_id;

INSERT INTO {{db}}.journey_hourly (account_id, link_id, hour, visitors64, converters64)
SELECT account_id, link_id, toStartOfHour(timestamp) AS hour,
  uniqCombined64State(17)(cityHash64(visitor_id)), uniqCombined64StateIf(17)(cityHash64(visitor_id), event_type = 'conversion')
FROM {{db}}.journey_events GROUP BY account_id, link_id, hour;

INSERT INTO {{db}}.journey_dims_hourly (account_id, dimension, label, hour, link_id, visitors64, converters64)
SELECT account_id, d.1 AS dimension, d.2 AS label, toStartOfHour(timestamp) AS hour, link_id,
  uniqCombined64State(17)(cityHash64(visitor_id)), uniqCombined64StateIf(17)(cityHash64(visitor_id), event_type = 'conversion')
FROM {{db}}.journey_events
ARRAY JOIN [
  ('device', toString(device_type)),
  ('country', toString(country_code)),
  ('name', if(event_type = 'conversion', if(conversion_name != '', conversion_name, event_name), ''))
] AS d
WHERE d.1 != 'name' OR event_type = 'conversion'
GROUP BY account_id, dimension, label, hour, link_id;
