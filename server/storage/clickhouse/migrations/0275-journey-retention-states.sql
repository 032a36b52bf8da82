-- Per-visitor retention state of a link's closed hours, so that the retention report stops grouping every
-- event bundle of the link's history by visitor on every call (server/journey/retention-state-query.ts).
-- For the link's bundles that ended before range_end (the start of an hour), one row per visitor: the
-- start of their first bundle ever (first_ms) and the weeks (Monday, UTC) they had a bundle in, as bits
-- of `weeks`: bit i is the week `anchor_ms` + i weeks, the anchor being the Monday 63 weeks before
-- range_end's; `week_firsts` holds, for each set bit in order, the start of that week's first bundle in
-- ms after the week's Monday (a compared window ends inside a week). A report reads the rows of the
-- visitors whose first visit falls in its window, and groups with their stored row only the visitors of
-- the bundles that ended since range_end.
--
-- Sorted by first visit within a computed range, so a window's cohorts are a key range. Computed by the
-- journey job for the links whose retention was asked lately, never by a report. A range computed again
-- is a new set of rows with a later computed_at; readers take the states of the latest range row's.
CREATE TABLE IF NOT EXISTS {{db}}.journey_retention_states {{on_cluster}} (
  account_id UUID,
  link_id UUID,
  range_end DateTime('UTC'),
  computed_at DateTime64(3, 'UTC'),
  first_ms Int64,
  vh UInt64,
  weeks UInt64,
  week_firsts Array(UInt32)
) ENGINE = {{replicated}}MergeTree
PARTITION BY range_end
ORDER BY (account_id, link_id, range_end, computed_at, first_ms, vh)
TTL range_end + INTERVAL 3 HOUR
SETTINGS ttl_only_drop_parts = 1;

-- One row per computed range: the bundle rows it was computed from (bundle rows are only ever added, so a
-- range whose bundles still count as many is unchanged; a late event adds one) and the weeks' anchor.
CREATE TABLE IF NOT EXISTS {{db}}.journey_retention_ranges {{on_cluster}} (
  account_id UUID,
  link_id UUID,
  range_end DateTime('UTC'),
  anchor_ms Int64,
  bundles UInt64,
  computed_at DateTime64(3, 'UTC')
) ENGINE = {{replicated}}ReplacingMergeTree(computed_at)
ORDER BY (account_id, link_id, range_end)
TTL range_end + INTERVAL 3 HOUR;
