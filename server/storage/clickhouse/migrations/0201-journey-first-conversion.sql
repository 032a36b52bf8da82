-- Time to convert from one rollup: each (link, visitor)'s first journey event and first conversion.
-- Both columns are minimums, so re-inserting rows (the backfill below, a replay) changes nothing.
ALTER TABLE {{db}}.journey_first_touch {{on_cluster}}
  ADD COLUMN IF NOT EXISTS first_conversion_at SimpleAggregateFunction(min, Nullable(DateTime64(3, 'UTC')));

DROP VIEW IF EXISTS {{db}}.journey_first_touch_mv {{on_cluster}};

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_first_touch_mv {{on_cluster}} TO {{db}}.journey_first_touch AS
SELECT account_id, link_id, visitor_id, min(timestamp) AS first_at,
  minIf(toNullable(timestamp), event_type = 'conversion') AS first_conversion_at
FROM {{db}}.journey_events
GROUP BY account_id, link_id, visitor_id;

INSERT INTO {{db}}.journey_first_touch (account_id, link_id, visitor_id, first_at, first_conversion_at)
SELECT account_id, link_id, visitor_id, min(timestamp), minIf(toNullable(timestamp), event_type = 'conversion')
FROM {{db}}.journey_events WHERE event_type = 'conversion' GROUP BY account_id, link_id, visitor_id;
