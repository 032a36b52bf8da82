-- Whether an event carried revenue_cents: the column alone cannot tell an absent value from 0 (absent
-- was stored as 0). New rows say so explicitly. Rows stored before this migration, and spool rows
-- written by the previous version (they have no value for the column), take the default, which
-- keeps the answer they gave before: a conversion's revenue is shown, another event's only when it is
-- not 0. Existing parts compute it when read; nothing is rewritten.
ALTER TABLE {{db}}.journey_events {{on_cluster}}
  ADD COLUMN IF NOT EXISTS has_revenue UInt8 DEFAULT event_type = 'conversion' OR revenue_cents != 0;
