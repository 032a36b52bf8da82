-- Exact unique visitors in the click aggregates: every aggregate that counted visitors with a
-- uniqCombined(14) sketch (migrations 0100 and 0221: exact only up to about a thousand, then up to 2.4% off)
-- gets `visitor_set`, the set of the row's distinct visitor hashes (uniqExact states: a state holds one
-- 64-bit hash per distinct visitor of its row, so a report merges as many hashes as its scope has
-- visitor-days). Reports count visitors from it; the sketch column `visitors` is no longer written
-- (rows stored before keep theirs, nothing reads them).
--
-- For each table: the column, the view rebuilt to fill it (migrations run before any spool flush, so no
-- click passes between the two), then the sets of the clicks stored before, as rows that carry only the
-- set (clicks add 0, last_click 1970): a set merged twice is unchanged, so a re-run adds nothing. The
-- backfill aggregates in the order of the clicks table (account, day), so it holds one day's sets at a time
-- rather than every set of the installation.

ALTER TABLE {{db}}.clicks_daily {{on_cluster}}
  ADD COLUMN IF NOT EXISTS visitor_set AggregateFunction(uniqExact, UInt64);

DROP VIEW IF EXISTS {{db}}.clicks_daily_mv {{on_cluster}};

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.clicks_daily_mv {{on_cluster}} TO {{db}}.clicks_daily AS
SELECT account_id, toDate(timestamp) AS day, domain, is_bot,
  count() AS clicks, uniqExactState(visitor_hash) AS visitor_set, max(timestamp) AS last_click
FROM {{db}}.clicks
GROUP BY account_id, day, domain, is_bot;

INSERT INTO {{db}}.clicks_daily (account_id, day, domain, is_bot, visitor_set)
SELECT account_id, toDate(timestamp) AS day, domain, is_bot, uniqExactState(visitor_hash)
FROM {{db}}.clicks GROUP BY account_id, day, domain, is_bot
SETTINGS optimize_aggregation_in_order = 1;

ALTER TABLE {{db}}.clicks_hourly {{on_cluster}}
  ADD COLUMN IF NOT EXISTS visitor_set AggregateFunction(uniqExact, UInt64);

DROP VIEW IF EXISTS {{db}}.clicks_hourly_mv {{on_cluster}};

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.clicks_hourly_mv {{on_cluster}} TO {{db}}.clicks_hourly AS
SELECT account_id, toStartOfHour(timestamp) AS hour, domain, is_bot,
  count() AS clicks, uniqExactState(visitor_hash) AS visitor_set, max(timestamp) AS last_click
FROM {{db}}.clicks
GROUP BY account_id, hour, domain, is_bot;

INSERT INTO {{db}}.clicks_hourly (account_id, hour, domain, is_bot, visitor_set)
SELECT account_id, toStartOfHour(timestamp) AS hour, domain, is_bot, uniqExactState(visitor_hash)
FROM {{db}}.clicks GROUP BY account_id, hour, domain, is_bot
SETTINGS optimize_aggregation_in_order = 1;

ALTER TABLE {{db}}.clicks_daily_links {{on_cluster}}
  ADD COLUMN IF NOT EXISTS visitor_set AggregateFunction(uniqExact, UInt64);

DROP VIEW IF EXISTS {{db}}.clicks_daily_links_mv {{on_cluster}};

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.clicks_daily_links_mv {{on_cluster}} TO {{db}}.clicks_daily_links AS
SELECT account_id, link_id, toDate(timestamp) AS day, domain, is_bot,
  count() AS clicks, uniqExactState(visitor_hash) AS visitor_set, max(timestamp) AS last_click
FROM {{db}}.clicks
GROUP BY account_id, link_id, day, domain, is_bot;

INSERT INTO {{db}}.clicks_daily_links (account_id, link_id, day, domain, is_bot, visitor_set)
SELECT account_id, link_id, toDate(timestamp) AS day, domain, is_bot, uniqExactState(visitor_hash)
FROM {{db}}.clicks GROUP BY account_id, link_id, day, domain, is_bot
SETTINGS optimize_aggregation_in_order = 1;

ALTER TABLE {{db}}.clicks_daily_geo {{on_cluster}}
  ADD COLUMN IF NOT EXISTS visitor_set AggregateFunction(uniqExact, UInt64);

DROP VIEW IF EXISTS {{db}}.clicks_daily_geo_mv {{on_cluster}};

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.clicks_daily_geo_mv {{on_cluster}} TO {{db}}.clicks_daily_geo AS
SELECT account_id, toDate(timestamp) AS day, domain, is_bot, country_code,
  count() AS clicks, uniqExactState(visitor_hash) AS visitor_set
FROM {{db}}.clicks
GROUP BY account_id, day, domain, is_bot, country_code;

INSERT INTO {{db}}.clicks_daily_geo (account_id, day, domain, is_bot, country_code, visitor_set)
SELECT account_id, toDate(timestamp) AS day, domain, is_bot, country_code, uniqExactState(visitor_hash)
FROM {{db}}.clicks GROUP BY account_id, day, domain, is_bot, country_code
SETTINGS optimize_aggregation_in_order = 1;

ALTER TABLE {{db}}.clicks_daily_referrers {{on_cluster}}
  ADD COLUMN IF NOT EXISTS visitor_set AggregateFunction(uniqExact, UInt64);

DROP VIEW IF EXISTS {{db}}.clicks_daily_referrers_mv {{on_cluster}};

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.clicks_daily_referrers_mv {{on_cluster}} TO {{db}}.clicks_daily_referrers AS
SELECT account_id, toDate(timestamp) AS day, domain, is_bot, referrer,
  count() AS clicks, uniqExactState(visitor_hash) AS visitor_set
FROM {{db}}.clicks
GROUP BY account_id, day, domain, is_bot, referrer;

INSERT INTO {{db}}.clicks_daily_referrers (account_id, day, domain, is_bot, referrer, visitor_set)
SELECT account_id, toDate(timestamp) AS day, domain, is_bot, referrer, uniqExactState(visitor_hash)
FROM {{db}}.clicks GROUP BY account_id, day, domain, is_bot, referrer
SETTINGS optimize_aggregation_in_order = 1;

ALTER TABLE {{db}}.clicks_daily_targets {{on_cluster}}
  ADD COLUMN IF NOT EXISTS visitor_set AggregateFunction(uniqExact, UInt64);

DROP VIEW IF EXISTS {{db}}.clicks_daily_targets_mv {{on_cluster}};

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.clicks_daily_targets_mv {{on_cluster}} TO {{db}}.clicks_daily_targets AS
SELECT account_id, link_id, toDate(timestamp) AS day, domain, is_bot, source, variant, rule,
  count() AS clicks, uniqExactState(visitor_hash) AS visitor_set, max(timestamp) AS last_click
FROM {{db}}.clicks
GROUP BY account_id, link_id, day, domain, is_bot, source, variant, rule;

INSERT INTO {{db}}.clicks_daily_targets (account_id, link_id, day, domain, is_bot, source, variant, rule, visitor_set)
SELECT account_id, link_id, toDate(timestamp) AS day, domain, is_bot, source, variant, rule, uniqExactState(visitor_hash)
FROM {{db}}.clicks GROUP BY account_id, link_id, day, domain, is_bot, source, variant, rule
SETTINGS optimize_aggregation_in_order = 1;
