-- Which way a click was served: `source` is 'qr' for a scan of the link's QR code (its short URL carries
-- the marker qr=1) and 'link' otherwise; `variant` is the URL of the A/B variant that served it ('' when
-- none did); `rule` the 1-based targeting rule that matched (0 when none did). Clicks stored before this
-- migration, and spool records written by the version before it, read as 'link', '' and 0.
ALTER TABLE {{db}}.clicks {{on_cluster}}
  ADD COLUMN IF NOT EXISTS source LowCardinality(String) DEFAULT 'link',
  ADD COLUMN IF NOT EXISTS variant String DEFAULT '',
  ADD COLUMN IF NOT EXISTS rule UInt8 DEFAULT 0;
