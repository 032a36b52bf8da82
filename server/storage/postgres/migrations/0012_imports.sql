-- Imports from other products (server/imports): the jobs with their progress, where each imported
-- link came from (a re-run creates nothing twice), and the totals another product counted per link.
CREATE TABLE "import_origins" (
	"account_id" uuid NOT NULL,
	"source" text NOT NULL,
	"origin_key" text NOT NULL,
	"link_id" uuid NOT NULL,
	"import_id" uuid NOT NULL,
	CONSTRAINT "import_origins_account_id_source_origin_key_pk" PRIMARY KEY("account_id","source","origin_key")
);
--> statement-breakpoint
CREATE TABLE "imports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"source" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"on_conflict" text DEFAULT 'skip' NOT NULL,
	"domain" text,
	"file_name" text,
	"total" integer DEFAULT 0 NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"created" integer DEFAULT 0 NOT NULL,
	"skipped" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"renamed" integer DEFAULT 0 NOT NULL,
	"clicks" bigint DEFAULT 0 NOT NULL,
	"errors" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "imported_clicks" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "import_origins" ADD CONSTRAINT "import_origins_link_id_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."links"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "imports" ADD CONSTRAINT "imports_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "import_origins_link_idx" ON "import_origins" USING btree ("link_id");--> statement-breakpoint
CREATE INDEX "imports_account_idx" ON "imports" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "imports_pending_idx" ON "imports" USING btree ("created_at") WHERE "imports"."status" IN ('queued', 'running');