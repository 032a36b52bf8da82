-- Several instances on one database: each registers here and heartbeats, so that a change to a cached
-- row (a link, a key, a domain) is answered once every instance with a fresh heartbeat has applied it.
-- locked_by names the instance holding a webhook delivery's lease, so that an instance restarted after
-- a crash releases its own leases at once instead of leaving them to run out.
CREATE TABLE "service_instances" (
	"id" uuid PRIMARY KEY NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "locked_by" uuid;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_locked_by_idx" ON "webhook_deliveries" USING btree ("locked_by") WHERE "webhook_deliveries"."locked_until" IS NOT NULL;
