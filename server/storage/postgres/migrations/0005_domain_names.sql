DROP INDEX "domains_name_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "domains_verified_name_idx" ON "domains" USING btree ("name") WHERE "domains"."verified_at" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "domains_account_name_idx" ON "domains" USING btree ("account_id","name");