-- The UTC days on which a link had a page view with an event_name (journey_event_bundles keeps those
-- names apart, in named_views and view_names). Reading those two columns cost the funnel ~10% even
-- when every array in them is empty, so the funnel asks here first and leaves them out when the
-- period has none.
CREATE TABLE IF NOT EXISTS {{db}}.journey_named_view_days {{on_cluster}} (
  account_id UUID,
  link_id UUID,
  day Date
) ENGINE = {{replicated}}ReplacingMergeTree
ORDER BY (account_id, link_id, day)
TTL day + INTERVAL 1825 DAY;

INSERT INTO {{db}}.journey_named_view_days
SELECT DISTINCT account_id, link_id, toDate(timestamp) AS day FROM {{db}}.journey_events
WHERE event_type = 'page_view' AND event_name != '' AND (SELECT count() FROM {{db}}.journey_named_view_days) = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{db}}.journey_named_view_days_mv {{on_cluster}} TO {{db}}.journey_named_view_days AS
SELECT DISTINCT account_id, link_id, toDate(timestamp) AS day FROM {{db}}.journey_events
WHERE event_type = 'page_view' AND event_name != '';
