-- Exact visitors and converters in the conversions breakdowns by device, country and conversion name:
-- journey_dims_hourly counted them with `uniq` states of visitor_id (migration 0200: exact up to 65,536
-- values per state, an estimate beyond). It gets `visitor_set` and `converter_set`, the sets of the row's
-- distinct cityHash64(visitor_id) (the hash every other journey visitor count uses, so a breakdown agrees
-- with the conversions summary); the `uniq` columns are no longer written (rows stored before keep
-- theirs, nothing reads them).
--
-- The view is dropped and re-created (migrations run before this instance's first spool flush). It is not
-- changed in place: a view changed by MODIFY QUERY names its blocks differently in the process that changed
-- it than after a restart, so a chunk that process inserted and a restart replays (after kill -9) was
-- stored twice in the rollup (docs/operations.md, upgrades). Then the sets of the events stored before, as
-- rows that carry only the sets (conversions and revenue 0): a set merged with itself is unchanged, so
-- events the new view already counted, or a re-run, add nothing.

ALTER TABLE {{db}}.journey_dims_hourly {{on_cluster}}
  ADD COLUMN IF NOT EXISTS visitor_set AggregateFunction(uniqExact, UInt64),
  ADD COLUMN IF NOT EXISTS converter_set AggregateFunction(uniqExact, UInt64);

DROP VIEW IF EXISTS {{db}}.journey_dims_hourly_mv {{on_cluster}};

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_dims_hourly_mv {{on_cluster}} TO {{db}}.journey_dims_hourly AS
SELECT account_id, d.1 AS dimension, d.2 AS label, toStartOfHour(timestamp) AS hour, link_id,
  countIf(event_type = 'conversion') AS conversions,
  sumIf(revenue_cents, event_type = 'conversion') AS revenue_cents,
  uniqExactState(cityHash64(visitor_id)) AS visitor_set,
  uniqExactStateIf(cityHash64(visitor_id), event_type = 'conversion') AS converter_set
FROM {{db}}.journey_events
ARRAY JOIN [
  ('device', toString(device_type)),
  ('country', toString(country_code)),
  ('name', if(event_type = 'conversion', if(conversion_name != '', conversion_name, event_name), ''))
] AS d
WHERE d.1 != 'name' OR event_type = 'conversion'
GROUP BY account_id, dimension, label, hour, link_id;

INSERT INTO {{db}}.journey_dims_hourly (account_id, dimension, label, hour, link_id, visitor_set, converter_set)
SELECT account_id, d.1 AS dimension, d.2 AS label, toStartOfHour(timestamp) AS hour, link_id,
  uniqExactState(cityHash64(visitor_id)), uniqExactStateIf(cityHash64(visitor_id), event_type = 'conversion')
FROM {{db}}.journey_events
ARRAY JOIN [
  ('device', toString(device_type)),
  ('country', toString(country_code)),
  ('name', if(event_type = 'conversion', if(conversion_name != '', conversion_name, event_name), ''))
] AS d
WHERE d.1 != 'name' OR event_type = 'conversion'
GROUP BY account_id, dimension, label, hour, link_id
SETTINGS optimize_aggregation_in_order = 1;
