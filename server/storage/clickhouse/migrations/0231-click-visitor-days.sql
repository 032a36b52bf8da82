-- Click visitors of closed days as numbers (docs/accuracy.md, "Unique visitors of clicks"). A visitor hash
-- is salted per UTC day, so two days share only the hashes a visitor carried across midnight (the
-- 30-minute carry of ingest/clicks/enrich/visitor-hash.ts): the visitors of days a..b are
-- Σ visitors(d) − Σ_{d>a} overlap(d), where overlap(d) counts the hashes a report's row had both on d and on
-- the day before. This table keeps both numbers per day for every row of every report that counts visitors
-- ("cell"), with the cell's clicks on the day and on the day before as they were when it was computed:
-- a report uses a stored number only while its aggregate still has those clicks, and counts the other
-- days (today, days touched by late clicks) from the raw clicks, so the figures are exact whatever
-- arrives late. Kept up to date by the analytics job (queries/visitor-days.ts), which recomputes a day
-- whose clicks changed; ReplacingMergeTree keeps the latest computation of a cell.
--
--   report: total (clicks_daily), hour (clicks_hourly), country (clicks_daily_geo),
--           referrer (clicks_daily_referrers), link (clicks_daily_links)
--   bot: 0 people, 1 bots, 2 both; domain: a domain, or '*' for every domain; key: the row's value
--   ('' for total, the hour 0–23, the country code, the referrer host, the link id).
CREATE TABLE IF NOT EXISTS {{db}}.click_visitor_days {{on_cluster}} (
  account_id UUID,
  report LowCardinality(String),
  bot UInt8,
  domain LowCardinality(String),
  key String,
  day Date,
  clicks UInt64,
  prev_clicks UInt64,
  visitors UInt64,
  overlap UInt64,
  computed_at DateTime64(3, 'UTC')
) ENGINE = {{replicated}}ReplacingMergeTree(computed_at)
PARTITION BY toYYYYMM(day)
ORDER BY (account_id, report, bot, domain, key, day)
TTL day + INTERVAL 1825 DAY;

-- The days stored so far, up to yesterday, from each aggregate's visitor sets (migration 0222): a re-run
-- computes the same numbers again, which replace the first ones. Clicks flushed meanwhile (an instance of
-- the previous version still writing) leave their day's numbers stale, which the reports see (the
-- clicks differ) and the job recomputes.
INSERT INTO {{db}}.click_visitor_days
SELECT account_id, 'total', b, dm, '', d, sumIf(clicks, role = 0), sumIf(clicks, role = 1),
  uniqExactMergeIf(visitor_set, role = 0) AS v, v + uniqExactMergeIf(visitor_set, role = 1) - uniqExactMerge(visitor_set), now64(3)
FROM (SELECT account_id, day + role AS d, b, dm, clicks, visitor_set, role FROM {{db}}.clicks_daily
  ARRAY JOIN [0, 1] AS role ARRAY JOIN [is_bot, 2] AS b ARRAY JOIN [toString(domain), '*'] AS dm)
WHERE d < toDate(now(), 'UTC')
GROUP BY account_id, d, b, dm
SETTINGS max_bytes_before_external_group_by = 200000000;

INSERT INTO {{db}}.click_visitor_days
SELECT account_id, 'hour', b, dm, k, d, sumIf(clicks, role = 0), sumIf(clicks, role = 1),
  uniqExactMergeIf(visitor_set, role = 0) AS v, v + uniqExactMergeIf(visitor_set, role = 1) - uniqExactMerge(visitor_set), now64(3)
FROM (SELECT account_id, toDate(hour) + role AS d, toString(toHour(hour)) AS k, b, dm, clicks, visitor_set, role FROM {{db}}.clicks_hourly
  ARRAY JOIN [0, 1] AS role ARRAY JOIN [is_bot, 2] AS b ARRAY JOIN [toString(domain), '*'] AS dm)
WHERE d < toDate(now(), 'UTC')
GROUP BY account_id, d, b, dm, k
SETTINGS max_bytes_before_external_group_by = 200000000;

INSERT INTO {{db}}.click_visitor_days
SELECT account_id, 'country', b, dm, k, d, sumIf(clicks, role = 0), sumIf(clicks, role = 1),
  uniqExactMergeIf(visitor_set, role = 0) AS v, v + uniqExactMergeIf(visitor_set, role = 1) - uniqExactMerge(visitor_set), now64(3)
FROM (SELECT account_id, day + role AS d, toString(country_code) AS k, b, dm, clicks, visitor_set, role FROM {{db}}.clicks_daily_geo
  ARRAY JOIN [0, 1] AS role ARRAY JOIN [is_bot, 2] AS b ARRAY JOIN [toString(domain), '*'] AS dm)
WHERE d < toDate(now(), 'UTC')
GROUP BY account_id, d, b, dm, k
SETTINGS max_bytes_before_external_group_by = 200000000;

INSERT INTO {{db}}.click_visitor_days
SELECT account_id, 'referrer', b, dm, k, d, sumIf(clicks, role = 0), sumIf(clicks, role = 1),
  uniqExactMergeIf(visitor_set, role = 0) AS v, v + uniqExactMergeIf(visitor_set, role = 1) - uniqExactMerge(visitor_set), now64(3)
FROM (SELECT account_id, day + role AS d, referrer AS k, b, dm, clicks, visitor_set, role FROM {{db}}.clicks_daily_referrers
  ARRAY JOIN [0, 1] AS role ARRAY JOIN [is_bot, 2] AS b ARRAY JOIN [toString(domain), '*'] AS dm)
WHERE d < toDate(now(), 'UTC')
GROUP BY account_id, d, b, dm, k
SETTINGS max_bytes_before_external_group_by = 200000000;

INSERT INTO {{db}}.click_visitor_days
SELECT account_id, 'link', b, dm, k, d, sumIf(clicks, role = 0), sumIf(clicks, role = 1),
  uniqExactMergeIf(visitor_set, role = 0) AS v, v + uniqExactMergeIf(visitor_set, role = 1) - uniqExactMerge(visitor_set), now64(3)
FROM (SELECT account_id, day + role AS d, toString(link_id) AS k, b, dm, clicks, visitor_set, role FROM {{db}}.clicks_daily_links
  ARRAY JOIN [0, 1] AS role ARRAY JOIN [is_bot, 2] AS b ARRAY JOIN [toString(domain), '*'] AS dm)
WHERE d < toDate(now(), 'UTC')
GROUP BY account_id, d, b, dm, k
SETTINGS max_bytes_before_external_group_by = 200000000;
