-- Earlier destinations of links: PATCH /links/{id} may change url (the code and the clicks stay); each
-- change keeps the URL it replaced and when, for GET /links/{id}/destinations and the console.
CREATE TABLE "link_destinations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"link_id" uuid NOT NULL,
	"previous_url" text NOT NULL,
	"new_url" text NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "link_destinations" ADD CONSTRAINT "link_destinations_link_id_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."links"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "link_destinations_link_idx" ON "link_destinations" USING btree ("link_id","changed_at");