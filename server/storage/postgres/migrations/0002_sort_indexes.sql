CREATE INDEX "links_account_title_idx" ON "links" USING btree ("account_id","title");--> statement-breakpoint
CREATE INDEX "links_account_updated_idx" ON "links" USING btree ("account_id","updated_at");--> statement-breakpoint
CREATE INDEX "links_account_code_idx" ON "links" USING btree ("account_id","short_code");--> statement-breakpoint
CREATE INDEX "links_account_expires_idx" ON "links" USING btree ("account_id","expires_at");