ALTER TABLE "monitors" ADD COLUMN "idempotency_key" text;--> statement-breakpoint
ALTER TABLE "monitors" ADD COLUMN "request_hash" text;--> statement-breakpoint
CREATE UNIQUE INDEX "monitors_idempotency_idx" ON "monitors" USING btree ("organization_id","idempotency_key");