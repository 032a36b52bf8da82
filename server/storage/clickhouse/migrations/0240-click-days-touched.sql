-- Which days of which accounts received clicks, and when (by ClickHouse's clock at the insert), so that
-- the analytics job (server/analytics/visitor-days-job.ts) recomputes the stored visitor numbers of only
-- the days that received clicks since its last round (late clicks, a spool replayed after an outage)
-- instead of comparing a year of every account's days every 5 minutes. A view on the raw clicks, so every
-- insert is seen, also one by an instance of an older version still running during an upgrade; stamped by
-- the minute, so that the table keeps one row per account, day and minute, in hourly partitions (the job
-- reads the last hour or two). The job's
-- first round in a process compares every day as before; the rows are kept 3 days, far longer than the
-- job's round.
CREATE TABLE IF NOT EXISTS {{db}}.click_days_touched {{on_cluster}} (
  touched_at DateTime('UTC'),
  account_id UUID,
  day Date,
  clicks UInt64
) ENGINE = {{replicated}}SummingMergeTree
PARTITION BY toStartOfHour(touched_at)
ORDER BY (account_id, touched_at, day)
TTL touched_at + INTERVAL 3 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.click_days_touched_mv {{on_cluster}} TO {{db}}.click_days_touched AS
SELECT toStartOfMinute(now('UTC')) AS touched_at, account_id, toDate(timestamp) AS day, count() AS clicks
FROM {{db}}.clicks
GROUP BY account_id, day;
