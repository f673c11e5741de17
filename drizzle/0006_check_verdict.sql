ALTER TABLE "checks" ADD COLUMN "verdict" text;--> statement-breakpoint
CREATE INDEX "checks_org_verdict_idx" ON "checks" USING btree ("organization_id","verdict","id");--> statement-breakpoint
-- Checks finished before the column existed get the verdict their stored result implies (the same rule as
-- src/checks/verdict.ts). A purged COMPLETED result no longer says whether the plan was active: its verdict
-- stays NULL (unknown), and the portal's verdict filter does not match it.
UPDATE "checks" SET "verdict" = CASE
    WHEN "status" = 'FAILED' THEN 'FAILED'
    WHEN ("result"::jsonb)->>'planActive' = 'true' THEN 'ACTIVE'
    WHEN ("result"::jsonb)->>'planActive' = 'false' THEN 'INACTIVE'
    ELSE 'UNDETERMINED'
  END
  WHERE "verdict" IS NULL AND "status" IN ('COMPLETED', 'FAILED')
    AND ("status" = 'FAILED' OR ("result" IS NOT NULL AND "purged_at" IS NULL));
