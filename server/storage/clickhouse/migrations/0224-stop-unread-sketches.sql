-- Stop computing the visitor states no report reads. Journey visitor and converter counts come from the
-- event bundles (migration 0207), exactly, so journey_hourly's `uniq` states (visitors, sessions,
-- converters) and its uniqCombined(14) `visitors_sketch` (migration 0203), and the copies of that sketch
-- kept per hour and per day in journey_visitors_hourly and journey_visitors_daily (migration 0208), were
-- computed by every insert for nothing. Those two tables stay: the journey summary reads their `events`.
-- (The click aggregates' `visitors` sketches stopped being written with migration 0222.)
--
-- Each view is dropped and re-created, as in migration 0223 (not changed in place: see there); running it
-- again changes nothing. The columns stay, so an instance of an earlier version still inserts and reads: rows written
-- from now on carry empty states there (docs/operations.md says what an old instance's reports show).

DROP VIEW IF EXISTS {{db}}.journey_hourly_mv {{on_cluster}};

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_hourly_mv {{on_cluster}} TO {{db}}.journey_hourly AS
SELECT account_id, link_id, toStartOfHour(timestamp) AS hour,
  count() AS events,
  countIf(event_type = 'conversion') AS conversions,
  sumIf(revenue_cents, event_type = 'conversion') AS revenue_cents
FROM {{db}}.journey_events
GROUP BY account_id, link_id, hour;

DROP VIEW IF EXISTS {{db}}.journey_visitors_hourly_mv {{on_cluster}};

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_visitors_hourly_mv {{on_cluster}} TO {{db}}.journey_visitors_hourly AS
SELECT account_id, link_id, hour, events FROM {{db}}.journey_hourly;

DROP VIEW IF EXISTS {{db}}.journey_visitors_daily_mv {{on_cluster}};

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_visitors_daily_mv {{on_cluster}} TO {{db}}.journey_visitors_daily AS
SELECT account_id, link_id, toDate(hour) AS day, sum(events) AS events
FROM {{db}}.journey_hourly
GROUP BY account_id, link_id, day;
