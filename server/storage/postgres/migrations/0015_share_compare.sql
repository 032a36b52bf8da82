-- Shared dashboards (server/shares/): the comparison the owner chose for the reports that compare (previous or year; null: none).
ALTER TABLE "shares" ADD COLUMN "compare" text;