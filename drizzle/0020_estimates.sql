CREATE TABLE "fee_schedule" (
	"organization_id" text NOT NULL,
	"procedure_code" text NOT NULL,
	"payer_id" text DEFAULT '' NOT NULL,
	"amount_cents" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "fee_schedule_organization_id_procedure_code_payer_id_pk" PRIMARY KEY("organization_id","procedure_code","payer_id")
);
--> statement-breakpoint
ALTER TABLE "checks" ADD COLUMN "charges" jsonb;--> statement-breakpoint
ALTER TABLE "fee_schedule" ADD CONSTRAINT "fee_schedule_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;