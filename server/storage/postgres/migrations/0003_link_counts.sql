CREATE TABLE "link_counts" (
	"account_id" uuid PRIMARY KEY NOT NULL,
	"live" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
DROP INDEX "links_account_last_accessed_idx";--> statement-breakpoint
DROP INDEX "links_account_title_idx";--> statement-breakpoint
DROP INDEX "links_account_updated_idx";--> statement-breakpoint
DROP INDEX "links_account_code_idx";--> statement-breakpoint
DROP INDEX "links_account_expires_idx";--> statement-breakpoint
ALTER TABLE "link_counts" ADD CONSTRAINT "link_counts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "links_live_created_idx" ON "links" USING btree ("account_id","created_at","id") WHERE "links"."deleted_at" IS NULL;--> statement-breakpoint
CREATE INDEX "links_live_last_accessed_idx" ON "links" USING btree ("account_id","last_accessed_at","id") WHERE "links"."deleted_at" IS NULL;--> statement-breakpoint
CREATE INDEX "links_live_title_idx" ON "links" USING btree ("account_id","title","id") WHERE "links"."deleted_at" IS NULL;--> statement-breakpoint
CREATE INDEX "links_live_updated_idx" ON "links" USING btree ("account_id","updated_at","id") WHERE "links"."deleted_at" IS NULL;--> statement-breakpoint
CREATE INDEX "links_live_code_idx" ON "links" USING btree ("account_id","short_code","id") WHERE "links"."deleted_at" IS NULL;--> statement-breakpoint
CREATE INDEX "links_live_expires_idx" ON "links" USING btree ("account_id","expires_at","id") WHERE "links"."deleted_at" IS NULL;--> statement-breakpoint
-- link_counts.live stays exact through triggers (drizzle-kit does not model them): inserts count per
-- statement, a soft delete or restore per row, deletes (purge, account removal) per statement.
CREATE FUNCTION "link_counts_after_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "link_counts" AS c ("account_id", "live")
  SELECT "account_id", count(*) FROM new_links WHERE "deleted_at" IS NULL GROUP BY "account_id" ORDER BY "account_id"
  ON CONFLICT ("account_id") DO UPDATE SET "live" = c."live" + excluded."live";
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION "link_counts_after_soft_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "link_counts" AS c ("account_id", "live")
  VALUES (NEW."account_id", CASE WHEN NEW."deleted_at" IS NULL THEN 1 ELSE -1 END)
  ON CONFLICT ("account_id") DO UPDATE SET "live" = c."live" + excluded."live";
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION "link_counts_after_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "link_counts" c SET "live" = c."live" - d.n
  FROM (SELECT "account_id", count(*) AS n FROM old_links WHERE "deleted_at" IS NULL GROUP BY "account_id") d
  WHERE c."account_id" = d."account_id";
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION "link_counts_after_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "link_counts";
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "link_counts_insert" AFTER INSERT ON "links" REFERENCING NEW TABLE AS new_links
  FOR EACH STATEMENT EXECUTE FUNCTION "link_counts_after_insert"();--> statement-breakpoint
CREATE TRIGGER "link_counts_soft_delete" AFTER UPDATE OF "deleted_at" ON "links"
  FOR EACH ROW WHEN ((OLD."deleted_at" IS NULL) IS DISTINCT FROM (NEW."deleted_at" IS NULL))
  EXECUTE FUNCTION "link_counts_after_soft_delete"();--> statement-breakpoint
CREATE TRIGGER "link_counts_delete" AFTER DELETE ON "links" REFERENCING OLD TABLE AS old_links
  FOR EACH STATEMENT EXECUTE FUNCTION "link_counts_after_delete"();--> statement-breakpoint
CREATE TRIGGER "link_counts_truncate" AFTER TRUNCATE ON "links"
  FOR EACH STATEMENT EXECUTE FUNCTION "link_counts_after_truncate"();--> statement-breakpoint
-- Existing links, counted after the triggers exist: creating them locked out concurrent writers.
INSERT INTO "link_counts" ("account_id", "live")
SELECT "account_id", count(*) FROM "links" WHERE "deleted_at" IS NULL GROUP BY "account_id";
