-- Links that do more: targeting rules, A/B variants, click limits with fallback URLs, a QR logo.
-- counted_clicks is the exact count of human clicks served while the link has a max_clicks; the
-- redirect adds to it in one statement per batch. limit_notified_at marks the link.expired event of a
-- reached limit (as expired_notified_at does for expires_at).
ALTER TABLE "links" ADD COLUMN "rules" jsonb;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "variants" jsonb;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "max_clicks" integer;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "max_clicks_url" text;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "expired_url" text;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "counted_clicks" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "limit_notified_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "qr_logo" text;--> statement-breakpoint
CREATE INDEX "links_click_limit_idx" ON "links" USING btree ("id") WHERE "links"."max_clicks" IS NOT NULL AND "links"."limit_notified_at" IS NULL;
