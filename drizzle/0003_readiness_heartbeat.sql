CREATE TABLE "heartbeat" (
	"id" integer PRIMARY KEY NOT NULL,
	"probed_at" timestamp with time zone NOT NULL
);
