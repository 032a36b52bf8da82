-- Top pages and events per link and day, fed from journey_tops_hourly's inserts (a few rows per
-- batch): a 90-day summary reads ~90 days of rows instead of ~2,160 hours of them.
CREATE TABLE IF NOT EXISTS {{db}}.journey_tops_daily {{on_cluster}} (
  account_id UUID,
  link_id UUID,
  kind LowCardinality(String),
  day Date,
  value String,
  count UInt64
) ENGINE = {{replicated}}SummingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (account_id, link_id, kind, day, value)
TTL day + INTERVAL 1825 DAY
SETTINGS non_replicated_deduplication_window = 10000;

INSERT INTO {{db}}.journey_tops_daily
SELECT account_id, link_id, kind, toDate(hour) AS day, value, sum(count)
FROM {{db}}.journey_tops_hourly WHERE (SELECT count() FROM {{db}}.journey_tops_daily) = 0
GROUP BY account_id, link_id, kind, day, value;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_tops_daily_mv {{on_cluster}} TO {{db}}.journey_tops_daily AS
SELECT account_id, link_id, kind, toDate(hour) AS day, value, sum(count) AS count
FROM {{db}}.journey_tops_hourly
GROUP BY account_id, link_id, kind, day, value;
