CREATE TABLE "connection_slots" (
	"connection" text NOT NULL,
	"slot" integer NOT NULL,
	"holder" text,
	"expires_at" timestamp with time zone,
	CONSTRAINT "connection_slots_connection_slot_pk" PRIMARY KEY("connection","slot")
);
--> statement-breakpoint
CREATE TABLE "connection_state" (
	"connection" text PRIMARY KEY NOT NULL,
	"tokens" double precision DEFAULT 0 NOT NULL,
	"refilled_at" timestamp with time zone DEFAULT now() NOT NULL,
	"paused_until" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "payer_directory" (
	"source" text PRIMARY KEY NOT NULL,
	"document" jsonb NOT NULL,
	"version" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
