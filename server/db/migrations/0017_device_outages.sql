CREATE TABLE "device_outages" (
	"store_id" integer NOT NULL,
	"since" timestamp (3) with time zone NOT NULL,
	"device_ids" integer[] NOT NULL,
	"ended_at" timestamp (3) with time zone,
	CONSTRAINT "device_outages_store_id_since_pk" PRIMARY KEY("store_id","since")
);
--> statement-breakpoint
ALTER TABLE "device_outages" ADD CONSTRAINT "device_outages_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "device_outages_open" ON "device_outages" USING btree ("store_id") WHERE "device_outages"."ended_at" is null;