DROP INDEX "checks_background_due_idx";--> statement-breakpoint
DROP INDEX "checks_interactive_due_idx";--> statement-breakpoint
ALTER TABLE "checks" ADD COLUMN "connection" text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX "checks_background_due_idx" ON "checks" USING btree ("organization_id","connection","next_attempt_at") WHERE status = 'IN_PROGRESS' AND priority > 0;--> statement-breakpoint
CREATE INDEX "checks_interactive_due_idx" ON "checks" USING btree ("organization_id","connection","next_attempt_at") WHERE status = 'IN_PROGRESS' AND priority = 0;