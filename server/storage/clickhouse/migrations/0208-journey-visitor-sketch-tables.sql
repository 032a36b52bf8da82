-- The events and visitor sketches of migration 0203 in tables of their own with small index granules. A query
-- reads whole granules, and journey_hourly's rows are large (several aggregate states each), so its
-- adaptive granules hold hundreds of hours: reading a period's first few hours deserialized the
-- sketches of all of them (~10 ms). Here a period's hours and days read a few granules of 128 hours
-- or 32 days. Both tables are fed from journey_hourly's inserts (a few rows per batch), which keeps
-- computing the hourly sketch. A period reads the hours before its first midnight and whole days after it.
CREATE TABLE IF NOT EXISTS {{db}}.journey_visitors_hourly {{on_cluster}} (
  account_id UUID,
  link_id UUID,
  hour DateTime('UTC'),
  events SimpleAggregateFunction(sum, UInt64),
  visitors_sketch AggregateFunction(uniqCombined(14), String)
) ENGINE = {{replicated}}AggregatingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (account_id, link_id, hour)
TTL hour + INTERVAL 1825 DAY
SETTINGS index_granularity = 128, non_replicated_deduplication_window = 10000;

CREATE TABLE IF NOT EXISTS {{db}}.journey_visitors_daily {{on_cluster}} (
  account_id UUID,
  link_id UUID,
  day Date,
  events SimpleAggregateFunction(sum, UInt64),
  visitors_sketch AggregateFunction(uniqCombined(14), String)
) ENGINE = {{replicated}}AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (account_id, link_id, day)
TTL day + INTERVAL 1825 DAY
SETTINGS index_granularity = 32, non_replicated_deduplication_window = 10000;

INSERT INTO {{db}}.journey_visitors_hourly
SELECT account_id, link_id, hour, events, visitors_sketch FROM {{db}}.journey_hourly
WHERE (SELECT count() FROM {{db}}.journey_visitors_hourly) = 0;

INSERT INTO {{db}}.journey_visitors_daily
SELECT account_id, link_id, toDate(hour) AS day, sum(events), uniqCombinedMergeState(14)(visitors_sketch)
FROM {{db}}.journey_hourly WHERE (SELECT count() FROM {{db}}.journey_visitors_daily) = 0
GROUP BY account_id, link_id, day;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_visitors_hourly_mv {{on_cluster}} TO {{db}}.journey_visitors_hourly AS
SELECT account_id, link_id, hour, events, visitors_sketch FROM {{db}}.journey_hourly;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_visitors_daily_mv {{on_cluster}} TO {{db}}.journey_visitors_daily AS
SELECT account_id, link_id, toDate(hour) AS day, sum(events) AS events,
  uniqCombinedMergeState(14)(visitors_sketch) AS visitors_sketch
FROM {{db}}.journey_hourly
GROUP BY account_id, link_id, day;
