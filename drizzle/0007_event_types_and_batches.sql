CREATE TABLE "batches" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"name" text,
	"total" integer NOT NULL,
	"rejected" integer DEFAULT 0 NOT NULL,
	"pending" integer NOT NULL,
	"completed" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"active" integer DEFAULT 0 NOT NULL,
	"inactive" integer DEFAULT 0 NOT NULL,
	"undetermined" integer DEFAULT 0 NOT NULL,
	"idempotency_key" text,
	"request_hash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
DROP INDEX "checks_due_idx";--> statement-breakpoint
DROP INDEX "webhook_events_check_idx";--> statement-breakpoint
ALTER TABLE "webhook_events" ALTER COLUMN "kind" SET DEFAULT 'eligibility.completed';--> statement-breakpoint
ALTER TABLE "checks" ADD COLUMN "batch_id" text;--> statement-breakpoint
ALTER TABLE "checks" ADD COLUMN "batch_index" integer;--> statement-breakpoint
ALTER TABLE "checks" ADD COLUMN "priority" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "webhook_event_types" text[];--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "batch_id" text;--> statement-breakpoint
ALTER TABLE "batches" ADD CONSTRAINT "batches_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "batches_org_created_idx" ON "batches" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "batches_idempotency_idx" ON "batches" USING btree ("organization_id","idempotency_key");--> statement-breakpoint
ALTER TABLE "checks" ADD CONSTRAINT "checks_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "checks_background_due_idx" ON "checks" USING btree ("organization_id","next_attempt_at") WHERE status = 'IN_PROGRESS' AND priority > 0;--> statement-breakpoint
CREATE INDEX "checks_batch_idx" ON "checks" USING btree ("batch_id","batch_index");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_events_batch_idx" ON "webhook_events" USING btree ("batch_id","kind");--> statement-breakpoint
CREATE INDEX "checks_due_idx" ON "checks" USING btree ("priority","next_attempt_at") WHERE status = 'IN_PROGRESS';--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_events_check_idx" ON "webhook_events" USING btree ("check_id","kind");--> statement-breakpoint
-- Events written before event types existed were all completions: give them the type's name.
UPDATE "webhook_events" SET "kind" = 'eligibility.completed' WHERE "kind" = 'eligibility.check.completed';
