-- Closed days' visitor numbers kept in the aggregates themselves (docs/accuracy.md, "Unique visitors of
-- clicks"): a report reads its aggregate once, for the clicks of every day of its range and for the stored
-- numbers of its closed days, instead of its aggregate and click_visitor_days (migration 0231), each table
-- a statement reads costing a few milliseconds of its own.
--
-- A stored row is a row of the aggregate with is_bot 10 (people), 11 (bots) or 12 (both), domain a domain
-- or '*' (every domain), the report's key in its own column (the hour of the day in `hour`, the country,
-- the referrer, the link), clicks 0, no visitors and no last click, and `stored`: (computed_at, the
-- cell's clicks on the day and on the day before when computed, its visitors, its overlap with the day
-- before), as click_visitor_days holds them. `max` keeps the latest computation (computed_at comes first
-- in the tuple), before and after merges. Readers of the live clicks ask for is_bot < 10 (or 0, or 1), and
-- a stored row adds nothing to sum(clicks), the visitor sets or the last click anyway. The analytics job
-- (server/analytics/queries/visitor-days.ts) writes them; click_visitor_days is no longer written or read.
ALTER TABLE {{db}}.clicks_daily {{on_cluster}}
  ADD COLUMN IF NOT EXISTS stored SimpleAggregateFunction(max, Tuple(DateTime64(3, 'UTC'), UInt64, UInt64, UInt64, UInt64));
ALTER TABLE {{db}}.clicks_hourly {{on_cluster}}
  ADD COLUMN IF NOT EXISTS stored SimpleAggregateFunction(max, Tuple(DateTime64(3, 'UTC'), UInt64, UInt64, UInt64, UInt64));
ALTER TABLE {{db}}.clicks_daily_geo {{on_cluster}}
  ADD COLUMN IF NOT EXISTS stored SimpleAggregateFunction(max, Tuple(DateTime64(3, 'UTC'), UInt64, UInt64, UInt64, UInt64));
ALTER TABLE {{db}}.clicks_daily_referrers {{on_cluster}}
  ADD COLUMN IF NOT EXISTS stored SimpleAggregateFunction(max, Tuple(DateTime64(3, 'UTC'), UInt64, UInt64, UInt64, UInt64));
ALTER TABLE {{db}}.clicks_daily_links {{on_cluster}}
  ADD COLUMN IF NOT EXISTS stored SimpleAggregateFunction(max, Tuple(DateTime64(3, 'UTC'), UInt64, UInt64, UInt64, UInt64));

-- The numbers stored so far, as they are: a re-run inserts the same tuples again, which `max` keeps once.
-- Numbers that no longer hold read as stale, as before, and the job recomputes them.
INSERT INTO {{db}}.clicks_daily (account_id, day, domain, is_bot, stored)
SELECT account_id, day, domain, bot + 10, (computed_at, clicks, prev_clicks, visitors, overlap)
FROM {{db}}.click_visitor_days FINAL WHERE report = 'total';

INSERT INTO {{db}}.clicks_hourly (account_id, hour, domain, is_bot, stored)
SELECT account_id, toDateTime(day, 'UTC') + toUInt32(key) * 3600, domain, bot + 10, (computed_at, clicks, prev_clicks, visitors, overlap)
FROM {{db}}.click_visitor_days FINAL WHERE report = 'hour';

INSERT INTO {{db}}.clicks_daily_geo (account_id, day, domain, is_bot, country_code, stored)
SELECT account_id, day, domain, bot + 10, key, (computed_at, clicks, prev_clicks, visitors, overlap)
FROM {{db}}.click_visitor_days FINAL WHERE report = 'country';

INSERT INTO {{db}}.clicks_daily_referrers (account_id, day, domain, is_bot, referrer, stored)
SELECT account_id, day, domain, bot + 10, key, (computed_at, clicks, prev_clicks, visitors, overlap)
FROM {{db}}.click_visitor_days FINAL WHERE report = 'referrer';

INSERT INTO {{db}}.clicks_daily_links (account_id, link_id, day, domain, is_bot, stored)
SELECT account_id, toUUID(key), day, domain, bot + 10, (computed_at, clicks, prev_clicks, visitors, overlap)
FROM {{db}}.click_visitor_days FINAL WHERE report = 'link';
