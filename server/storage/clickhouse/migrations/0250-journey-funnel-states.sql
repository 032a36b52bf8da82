-- Per-visitor funnel state of closed hours, so that a 24-hour to 90-day funnel stops re-reading, on every
-- call, the event bundles of hours that cannot change (server/journey/funnel-cache-query.ts). A funnel (its
-- steps, comma-joined) asked for a link over a period [h, now) is split in two: the closed hours
-- [range_start = h, range_end = the current hour's start), kept here as one state per visitor, and the
-- current hour (and events dated ahead), read from journey_event_bundles. A state is the time of their first step-1 event (t0) and, per step
-- k ≥ 2, their first event matching a step ≥ k (a) and the first such at or after t0 (b), each as
-- (ms << 20) | the lowest such step's bit, 2^64 - 1 without one. States of consecutive ranges combine
-- exactly (a visitor's level is a function of the combined state), so a report reads the states of
-- the visitors of the current hour only, and the stored level counts of the others.
--
-- Sorted by visitor within a range, in the default granules: the current hour's visitors (~1,400 on the
-- 10-million-event bench) touch most granules of a range anyway, and with 64-row granules both the key
-- lookup and the scan cost twice as much there.
-- Computed by the journey job for the funnels asked lately, never by a report. A range computed again
-- (late events) is a new set of rows with a later computed_at; readers take the states of the range
-- row's latest computed_at.
CREATE TABLE IF NOT EXISTS {{db}}.journey_funnel_states {{on_cluster}} (
  account_id UUID,
  link_id UUID,
  funnel String,
  range_start DateTime('UTC'),
  range_end DateTime('UTC'),
  computed_at DateTime64(3, 'UTC'),
  vh UInt64,
  t0 UInt64,
  a Array(UInt64),
  b Array(UInt64)
) ENGINE = {{replicated}}MergeTree
PARTITION BY range_end
ORDER BY (account_id, link_id, funnel, range_start, range_end, vh, computed_at)
TTL range_end + INTERVAL 3 HOUR
SETTINGS ttl_only_drop_parts = 1;

-- One row per computed range: the bundle rows it was computed from (bundle rows are only ever added, so
-- a range whose bundles still count as many is unchanged) and its visitors per funnel level (index 0:
-- no step-1 event).
CREATE TABLE IF NOT EXISTS {{db}}.journey_funnel_ranges {{on_cluster}} (
  account_id UUID,
  link_id UUID,
  funnel String,
  range_start DateTime('UTC'),
  range_end DateTime('UTC'),
  bundles UInt64,
  levels Array(UInt64),
  computed_at DateTime64(3, 'UTC')
) ENGINE = {{replicated}}ReplacingMergeTree(computed_at)
ORDER BY (account_id, link_id, funnel, range_start, range_end)
TTL range_end + INTERVAL 3 HOUR;
