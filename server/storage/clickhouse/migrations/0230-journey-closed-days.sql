-- Visitor and converter counts of closed days, so that a 30- or 90-day report stops re-reading, on every
-- call, the bundles of days that cannot change. A row per UTC day before today, per link and per account
-- (link_id all zeros), computed from journey_event_bundles (migration 0207): the day's units (a visitor with
-- an event that day, and apart, a visitor with a conversion that day) counted by the hour of the unit's
-- last event (`*_last`), and by the hour of the visitor's last event before that day (`*_prev`, 1970
-- without one in the 92 days before), as sumMap pairs (hours, counts). The visitors of a period from hour
-- h to the end of the closed days are then the first day's units whose last event is at or after h plus
-- the later days' units whose previous event is before h (each visitor counted once, at their first day in
-- the period); server/journey/closed-days-query.ts adds today, counted from the bundles.
--
-- `bundles` is the number of bundle rows of the day the row was computed from. Bundle rows are only ever
-- added (an insert, also a late one, adds rows to its day; merges and replayed chunks add none), so a
-- report that finds as many bundle rows in its closed days as their rows say knows them unchanged, and
-- otherwise recomputes from the first changed day (a day's `_prev` depends on the days before it).
-- Rows are written by the reports (and this backfill), never by a view: ingest does not pay for them.
-- A re-computed day is a new row with a later computed_at; readers take the latest (argMax), so two
-- instances computing the same day at once, or a re-run of this migration, change no count.
CREATE TABLE IF NOT EXISTS {{db}}.journey_closed_days {{on_cluster}} (
  account_id UUID,
  link_id UUID,
  day Date,
  bundles UInt64,
  visitor_last Tuple(Array(DateTime('UTC')), Array(UInt64)),
  visitor_prev Tuple(Array(DateTime('UTC')), Array(UInt64)),
  converter_last Tuple(Array(DateTime('UTC')), Array(UInt64)),
  converter_prev Tuple(Array(DateTime('UTC')), Array(UInt64)),
  computed_at DateTime64(3, 'UTC')
) ENGINE = {{replicated}}ReplacingMergeTree(computed_at)
ORDER BY (account_id, link_id, day)
TTL day + INTERVAL 1825 DAY;

-- The closed days of the last 91 days (no report period reaches further), per link, then per account,
-- from the events stored before this migration. Instances still running the previous version may insert
-- meanwhile: a day they add to after this computed it no longer matches its `bundles`, and the first
-- report that reads it computes it again.
INSERT INTO {{db}}.journey_closed_days
SELECT account_id, link_id, day, sum(n) AS bundles,
  sumMap([last], [toUInt64(1)]) AS visitor_last,
  sumMap([prev], [toUInt64(1)]) AS visitor_prev,
  sumMap(if(clast = 0, [], [toDateTime(clast, 'UTC')]), if(clast = 0, [], [toUInt64(1)])) AS converter_last,
  sumMap(if(clast = 0, [], [toDateTime(cprev, 'UTC')]), if(clast = 0, [], [toUInt64(1)])) AS converter_prev,
  now64(3) AS computed_at
FROM (
  SELECT account_id, link_id, vh, day, n, last, clast,
    max(last) OVER w AS prev, max(clast) OVER w AS cprev
  FROM (
    SELECT account_id, link_id, vh, toDate(ended) AS day, count() AS n,
      toStartOfHour(toDateTime(max(ended), 'UTC')) AS last,
      intDiv(max(if(has(types, 5), toUnixTimestamp64Milli(started) + arrayMax(arrayFilter((o, ty) -> ty = 5, times, types)), 0)), 3600000) * 3600 AS clast
    FROM {{db}}.journey_event_bundles
    WHERE ended >= toDateTime(toDate(now(), 'UTC') - 92, 'UTC') AND ended < toDateTime(toDate(now(), 'UTC'), 'UTC')
    GROUP BY account_id, link_id, vh, day)
  WINDOW w AS (PARTITION BY account_id, link_id, vh ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING))
WHERE day >= toDate(now(), 'UTC') - 91
GROUP BY account_id, link_id, day;

INSERT INTO {{db}}.journey_closed_days
SELECT account_id, toUUID('00000000-0000-0000-0000-000000000000') AS link_id, day, sum(n) AS bundles,
  sumMap([last], [toUInt64(1)]) AS visitor_last,
  sumMap([prev], [toUInt64(1)]) AS visitor_prev,
  sumMap(if(clast = 0, [], [toDateTime(clast, 'UTC')]), if(clast = 0, [], [toUInt64(1)])) AS converter_last,
  sumMap(if(clast = 0, [], [toDateTime(cprev, 'UTC')]), if(clast = 0, [], [toUInt64(1)])) AS converter_prev,
  now64(3) AS computed_at
FROM (
  SELECT account_id, vh, day, n, last, clast,
    max(last) OVER w AS prev, max(clast) OVER w AS cprev
  FROM (
    SELECT account_id, vh, toDate(ended) AS day, count() AS n,
      toStartOfHour(toDateTime(max(ended), 'UTC')) AS last,
      intDiv(max(if(has(types, 5), toUnixTimestamp64Milli(started) + arrayMax(arrayFilter((o, ty) -> ty = 5, times, types)), 0)), 3600000) * 3600 AS clast
    FROM {{db}}.journey_event_bundles
    WHERE ended >= toDateTime(toDate(now(), 'UTC') - 92, 'UTC') AND ended < toDateTime(toDate(now(), 'UTC'), 'UTC')
    GROUP BY account_id, vh, day)
  WINDOW w AS (PARTITION BY account_id, vh ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING))
WHERE day >= toDate(now(), 'UTC') - 91
GROUP BY account_id, day;
