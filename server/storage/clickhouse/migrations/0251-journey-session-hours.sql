-- The journey summary's session count and average duration from stored per-hour state (issue 24 item 2),
-- so that the summary no longer reads journey_sessions_v2 FINAL over the link's whole history. Written
-- only by the journey job (server/journey/session-hours-query.ts), never by a view or a report.
--
-- A row per closed hour of a link (the hour of the bundles' `ended`, migration 0207), over the sessions
-- (sid != 0) with a bundle ending in it: `bundles`, how many such bundle rows the row was computed from
-- (the reports use the rows only when the hours still hold exactly as many: bundle rows are only ever
-- added, so a late event shows as a changed count, and the job computes that hour and the later ones
-- again); `after_prev`, keyed by the hour of the session's previous bundle end (before this hour), the
-- sessions' count, sum of (end in this hour − previous end) and sum of (end − this hour's start), in ms;
-- `first`, the same for sessions with no earlier bundle, keyed by the hour of their first event, with the
-- sum of (end − first event); `anomalies`, the sessions whose bundles here began before every earlier
-- bundle of theirs (a batch carrying a late event together with later ones), for which the reports
-- answer from journey_sessions_v2 instead; `before`, how many bundle rows of the link (any session)
-- ended before this hour when the row was computed, so that a late event dated before a report's period
-- (which can turn a session's first hour into a later one) shows too. A row computed again has a later computed_at; readers take
-- the latest (argMax).
CREATE TABLE IF NOT EXISTS {{db}}.journey_session_hours {{on_cluster}} (
  account_id UUID,
  link_id UUID,
  start DateTime('UTC'),
  bundles UInt64,
  after_prev Tuple(Array(DateTime('UTC')), Array(UInt64), Array(UInt64), Array(UInt64)),
  first Tuple(Array(DateTime('UTC')), Array(UInt64), Array(UInt64), Array(UInt64)),
  anomalies UInt64,
  before UInt64,
  computed_at DateTime64(3, 'UTC')
) ENGINE = {{replicated}}ReplacingMergeTree(computed_at)
ORDER BY (account_id, link_id, start)
TTL start + INTERVAL 1825 DAY;
