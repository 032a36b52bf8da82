-- Clicks per link, day, source, variant and rule: link stats and the click reports split by source,
-- variant or rule (group_by), and the summary and timeseries filtered by source. Unique visitors are
-- uniqCombined(14) states, as in 0100's aggregates.
CREATE TABLE IF NOT EXISTS {{db}}.clicks_daily_targets {{on_cluster}} (
  account_id UUID,
  link_id UUID,
  day Date,
  domain LowCardinality(String),
  is_bot UInt8,
  source LowCardinality(String),
  variant String,
  rule UInt8,
  clicks SimpleAggregateFunction(sum, UInt64),
  visitors AggregateFunction(uniqCombined(14), UInt64),
  last_click SimpleAggregateFunction(max, DateTime64(3, 'UTC'))
) ENGINE = {{replicated}}AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (account_id, link_id, day, domain, is_bot, source, variant, rule)
TTL day + INTERVAL 1825 DAY
SETTINGS non_replicated_deduplication_window = 10000;

-- Clicks stored before this migration (all 'link', no variant, no rule), once: the table is still empty.
INSERT INTO {{db}}.clicks_daily_targets
SELECT account_id, link_id, toDate(timestamp) AS day, domain, is_bot, source, variant, rule,
  count() AS clicks, uniqCombinedState(14)(visitor_hash) AS visitors, max(timestamp) AS last_click
FROM {{db}}.clicks
WHERE (SELECT count() FROM {{db}}.clicks_daily_targets) = 0
GROUP BY account_id, link_id, day, domain, is_bot, source, variant, rule;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.clicks_daily_targets_mv {{on_cluster}} TO {{db}}.clicks_daily_targets AS
SELECT account_id, link_id, toDate(timestamp) AS day, domain, is_bot, source, variant, rule,
  count() AS clicks, uniqCombinedState(14)(visitor_hash) AS visitors, max(timestamp) AS last_click
FROM {{db}}.clicks
GROUP BY account_id, link_id, day, domain, is_bot, source, variant, rule;
