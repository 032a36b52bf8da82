-- Read-only shared dashboards (server/shares/): the account, a campaign or one link at /share/{token};
-- the token and its predecessor (during the grace after a rotation) as SHA-256, the password as a Bun.password hash.
CREATE TABLE "shares" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"title" text NOT NULL,
	"scope" text NOT NULL,
	"link_id" uuid,
	"campaign_id" uuid,
	"reports" text[] NOT NULL,
	"funnel_steps" text[],
	"enabled" boolean DEFAULT true NOT NULL,
	"expires_at" timestamp with time zone,
	"token_hash" text NOT NULL,
	"token_prefix" text NOT NULL,
	"previous_token_hash" text,
	"previous_valid_until" timestamp with time zone,
	"password_hash" text,
	"allowed_origins" text[] DEFAULT '{}'::text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "shares" ADD CONSTRAINT "shares_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shares" ADD CONSTRAINT "shares_link_id_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."links"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shares" ADD CONSTRAINT "shares_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "shares_token_hash_idx" ON "shares" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "shares_previous_token_hash_idx" ON "shares" USING btree ("previous_token_hash") WHERE "shares"."previous_token_hash" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "shares_account_idx" ON "shares" USING btree ("account_id","created_at");