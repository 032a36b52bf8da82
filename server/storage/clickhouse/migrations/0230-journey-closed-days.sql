-- Visitor and converter counts of closed periods, so that a 30- or 90-day report stops re-reading, on every
-- call, the bundles of days that cannot change. A row per UTC day before today and per closed hour of
-- today (`span`: 86400 or 3600 seconds from `start`), per link and per account (link_id all zeros),
-- computed from journey_event_bundles (migration 0207), each bundle in the period of its `ended`. The
-- period's units (a visitor with a bundle in it, and apart, a visitor with a conversion in it) are counted
-- by the hour of the unit's last event (`*_last`) and by the hour of the visitor's last event before the
-- period (`*_prev`, 1970 without one in the 92 days before), as sumMap pairs (hours, counts). A report from
-- hour h then counts each visitor once, at their first period with an event at or after h: a period that
-- starts before h by its units whose last event is at or after h, a later one by its units whose previous
-- event is before h; server/journey/closed-days-query.ts adds the open hour.
--
-- `bundles` is the number of bundle rows the row was computed from. Bundle rows are only ever added (an
-- insert, also a late one, adds rows to its day; merges and replayed chunks add none), so a report that
-- finds as many bundle rows in its closed periods as their rows say knows them unchanged, and otherwise
-- computes again from the first changed period (a period's `_prev` depends on those before it). Rows are
-- written by the reports (and this backfill), never by a view. A period computed again is a new row with
-- a later computed_at; readers take the latest (argMax), so two instances computing the same period at
-- once, or a re-run of this migration, change no count.
CREATE TABLE IF NOT EXISTS {{db}}.journey_closed_days {{on_cluster}} (
  account_id UUID,
  link_id UUID,
  start DateTime('UTC'),
  span UInt32,
  bundles UInt64,
  visitor_last Tuple(Array(DateTime('UTC')), Array(UInt64)),
  visitor_prev Tuple(Array(DateTime('UTC')), Array(UInt64)),
  converter_last Tuple(Array(DateTime('UTC')), Array(UInt64)),
  converter_prev Tuple(Array(DateTime('UTC')), Array(UInt64)),
  computed_at DateTime64(3, 'UTC')
) ENGINE = {{replicated}}ReplacingMergeTree(computed_at)
ORDER BY (account_id, link_id, span, start)
TTL start + INTERVAL 1825 DAY;

-- The open hour's visitors are looked up here by visitor: a row per bundle (its visitor hash, the hour of
-- its last event and of its last conversion, 1970 without one), sorted by account and visitor in small
-- granules (64 rows) and yearly partitions, so a few hundred visitors read a few hundred granules of
-- one or two parts (with 256-row granules and monthly partitions, the bench's 671 visitors of an hour read
-- 565,000 of 2.5M rows). Kept 92 days (the longest period).
CREATE TABLE IF NOT EXISTS {{db}}.journey_visitor_hours {{on_cluster}} (
  account_id UUID,
  vh UInt64,
  link_id UUID,
  hour DateTime('UTC'),
  converted DateTime('UTC')
) ENGINE = {{replicated}}MergeTree
PARTITION BY toYear(hour)
ORDER BY (account_id, vh, hour, link_id)
TTL hour + INTERVAL 92 DAY
SETTINGS index_granularity = 64, min_compress_block_size = 1024, max_compress_block_size = 4096, non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_visitor_hours_mv {{on_cluster}} TO {{db}}.journey_visitor_hours AS
SELECT account_id, vh, link_id, toStartOfHour(toDateTime(ended, 'UTC')) AS hour,
  toDateTime(intDiv(if(has(types, 5), toUnixTimestamp64Milli(started) + arrayMax(arrayFilter((o, ty) -> ty = 5, times, types)), 0), 3600000) * 3600, 'UTC') AS converted
FROM {{db}}.journey_event_bundles;

-- The bundles stored before this migration, in the last 92 days. The view exists first, so whatever
-- instances of the previous version insert meanwhile is in the table, some of it twice (from the view and
-- from this copy), as it is after a re-run: the table only answers whether a visitor had a bundle in some
-- hours, which a row stored twice does not change. The closed periods' counts are computed by the first
-- report that reads them.
INSERT INTO {{db}}.journey_visitor_hours
SELECT account_id, vh, link_id, toStartOfHour(toDateTime(ended, 'UTC')) AS hour,
  toDateTime(intDiv(if(has(types, 5), toUnixTimestamp64Milli(started) + arrayMax(arrayFilter((o, ty) -> ty = 5, times, types)), 0), 3600000) * 3600, 'UTC') AS converted
FROM {{db}}.journey_event_bundles
WHERE ended >= toDateTime(toDate(now(), 'UTC') - 92, 'UTC');
