CREATE TABLE "payer_call_stats" (
	"payer_id" text NOT NULL,
	"connection" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"calls" integer DEFAULT 0 NOT NULL,
	"completed" integer DEFAULT 0 NOT NULL,
	"aaa" integer DEFAULT 0 NOT NULL,
	"transient" integer DEFAULT 0 NOT NULL,
	"rejected" integer DEFAULT 0 NOT NULL,
	"errors" integer DEFAULT 0 NOT NULL,
	"aaa_codes" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"latency_buckets" integer[] NOT NULL,
	"latency_total_ms" bigint DEFAULT 0 NOT NULL,
	"source_payer_rows" integer DEFAULT 0 NOT NULL,
	"source_plan_fallback" integer DEFAULT 0 NOT NULL,
	"source_none" integer DEFAULT 0 NOT NULL,
	"last_success_at" timestamp with time zone,
	CONSTRAINT "payer_call_stats_payer_id_connection_hour_pk" PRIMARY KEY("payer_id","connection","hour")
);
--> statement-breakpoint
CREATE INDEX "payer_call_stats_hour_idx" ON "payer_call_stats" USING btree ("hour");