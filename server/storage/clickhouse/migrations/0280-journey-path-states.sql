-- Per-visitor paths of closed hours, so that the paths report (server/insights/paths-query.ts) stops
-- choosing a session per visitor and gathering its events from every bundle of the period on each call
-- (server/journey/path-state-query.ts). A paths report (its direction, steps and target: `paths`, as
-- "forward:5:add_to_cart") asked for a link over a window [h, to) is split in two at range_end, the start
-- of the hour holding the window's end (or now): every event before it (of the bundles that start before
-- it, one across it included), kept here as each visitor's path rows (one per step: the step's node, the
-- next one and the time between; sid the chosen session's, t the target's time), and the bundles that ended since, read raw.
-- A visitor with no bundle since has exactly their stored path (a path is a function of the visitor's own
-- events); so does one whose events since cannot change it (all come after the stored target); the others
-- (a first target event since, a forward path that goes on) get theirs from the bundles.
--
-- A compared window's range ends in the past (a week back for compare=previous): rows live three hours
-- after they were computed, not after range_end. Computed by the journey job for the paths reports asked
-- lately, never by a report. A range computed again (late events) is a new set of rows with a later
-- computed_at; readers take the rows of the range row's latest computed_at.
CREATE TABLE IF NOT EXISTS {{db}}.journey_path_states {{on_cluster}} (
  account_id UUID,
  link_id UUID,
  paths String,
  range_start DateTime('UTC'),
  range_end DateTime('UTC'),
  computed_at DateTime64(3, 'UTC'),
  vh UInt64,
  sid UInt64,
  k UInt8,
  ty UInt8,
  lb UInt64,
  nty UInt8,
  nlb UInt64,
  dt UInt64,
  t Int64
) ENGINE = {{replicated}}MergeTree
PARTITION BY toStartOfHour(computed_at)
ORDER BY (account_id, link_id, paths, range_start, range_end, computed_at, vh, k)
TTL toDateTime(computed_at) + INTERVAL 3 HOUR
SETTINGS ttl_only_drop_parts = 1;

-- One row per computed range: the bundle rows that start before range_end it was computed from (bundle
-- rows are only ever added, so a range whose bundles still count as many is unchanged; a late event, or a
-- batch across range_end arriving after the job's round, adds one).
CREATE TABLE IF NOT EXISTS {{db}}.journey_path_ranges {{on_cluster}} (
  account_id UUID,
  link_id UUID,
  paths String,
  range_start DateTime('UTC'),
  range_end DateTime('UTC'),
  bundles UInt64,
  computed_at DateTime64(3, 'UTC')
) ENGINE = {{replicated}}ReplacingMergeTree(computed_at)
ORDER BY (account_id, link_id, paths, range_start, range_end)
TTL toDateTime(computed_at) + INTERVAL 3 HOUR;
