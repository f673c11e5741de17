ALTER TABLE "checks" ADD COLUMN "reuse_within_hours" integer;--> statement-breakpoint
ALTER TABLE "checks" ADD COLUMN "patient_key" text;--> statement-breakpoint
ALTER TABLE "checks" ADD COLUMN "reuse_key" text;--> statement-breakpoint
ALTER TABLE "checks" ADD COLUMN "reused_from" text;--> statement-breakpoint
ALTER TABLE "checks" ADD COLUMN "compared_with" text;--> statement-breakpoint
ALTER TABLE "checks" ADD COLUMN "coverage_changes" jsonb;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "reuse_within_hours" integer;--> statement-breakpoint
CREATE INDEX "checks_patient_history_idx" ON "checks" USING btree ("organization_id","patient_key","completed_at") WHERE status = 'COMPLETED' AND reused_from IS NULL;--> statement-breakpoint
CREATE INDEX "checks_reuse_idx" ON "checks" USING btree ("organization_id","reuse_key","completed_at") WHERE status = 'COMPLETED' AND reused_from IS NULL;--> statement-breakpoint
CREATE INDEX "checks_compared_with_idx" ON "checks" USING btree ("compared_with") WHERE compared_with IS NOT NULL;