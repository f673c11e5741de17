CREATE TABLE "discoveries" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"status" text DEFAULT 'IN_PROGRESS' NOT NULL,
	"asked" integer NOT NULL,
	"answered" integer DEFAULT 0 NOT NULL,
	"found" integer DEFAULT 0 NOT NULL,
	"pending" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "checks" ADD COLUMN "discovery_id" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "discovery_payers" text[];--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "discovery_id" text;--> statement-breakpoint
ALTER TABLE "discoveries" ADD CONSTRAINT "discoveries_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "discoveries_org_created_idx" ON "discoveries" USING btree ("organization_id","created_at");--> statement-breakpoint
ALTER TABLE "checks" ADD CONSTRAINT "checks_discovery_id_discoveries_id_fk" FOREIGN KEY ("discovery_id") REFERENCES "discoveries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_discovery_id_discoveries_id_fk" FOREIGN KEY ("discovery_id") REFERENCES "discoveries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "checks_discovery_idx" ON "checks" USING btree ("discovery_id") WHERE discovery_id IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_events_discovery_idx" ON "webhook_events" USING btree ("discovery_id","kind");