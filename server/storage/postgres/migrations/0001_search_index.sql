CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX "links_search_idx" ON "links" USING gin (("original_url" || ' ' || coalesce("title", '') || ' ' || "short_code") gin_trgm_ops);
