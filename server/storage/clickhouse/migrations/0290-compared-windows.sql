-- The answers of compared windows (`compare=previous|year`, server/reports/compared-store.ts). A compared
-- window lies wholly in the past, so its answer changes only when rows of its source are added (late
-- events) or removed (a visitor's data erased): each answer is stored with a fingerprint of its window's
-- source rows (for the journey and conversion reports: the count, visitor-hash sum and end-time sum of the
-- event bundles that can hold its events), and a read whose fingerprint differs computes it again.
-- `key` is a SHA-256 of the report, its parameters, its scope (link ids) and its window; the account leads
-- the sort key and every read binds it, so one account never reads another's. Written by the reports (a
-- miss computes and stores); two instances storing the same window at once store the same answer, and
-- readers take the latest (argMax by computed_at). Windows move by the hour, so a key is asked for about
-- an hour: rows are dropped a day after they were computed.
CREATE TABLE IF NOT EXISTS {{db}}.compared_windows {{on_cluster}} (
  account_id UUID,
  report LowCardinality(String),
  key FixedString(64),
  fingerprint String,
  answer String CODEC(ZSTD(1)),
  computed_at DateTime64(3, 'UTC')
) ENGINE = {{replicated}}ReplacingMergeTree(computed_at)
PARTITION BY toDate(computed_at)
ORDER BY (account_id, report, key)
TTL toDateTime(computed_at) + INTERVAL 1 DAY
SETTINGS ttl_only_drop_parts = 1;
