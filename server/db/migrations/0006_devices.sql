CREATE TABLE "device_batches" (
	"device_id" integer NOT NULL,
	"key" text NOT NULL,
	"body_hash" text NOT NULL,
	"answer" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "device_batches_device_id_key_pk" PRIMARY KEY("device_id","key")
);
--> statement-breakpoint
CREATE TABLE "device_pairings" (
	"code_hash" text PRIMARY KEY NOT NULL,
	"device_id" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "devices" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "devices_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"store_id" integer NOT NULL,
	"name" text NOT NULL,
	"key_hash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"paired_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"last_seen_at" timestamp with time zone,
	"last_sale_at" timestamp (3) with time zone,
	"pending" integer,
	"skew_ms" bigint,
	"rate_window_at" timestamp with time zone,
	"rate_count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "devices_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
ALTER TABLE "usages" DROP CONSTRAINT "usages_amount_range";--> statement-breakpoint
ALTER TABLE "usages" ADD COLUMN "device_id" integer;--> statement-breakpoint
ALTER TABLE "usages" ADD COLUMN "device_sale_id" text;--> statement-breakpoint
ALTER TABLE "device_batches" ADD CONSTRAINT "device_batches_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_pairings" ADD CONSTRAINT "device_pairings_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "devices" ADD CONSTRAINT "devices_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "device_batches_created" ON "device_batches" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "device_pairings_device" ON "device_pairings" USING btree ("device_id");--> statement-breakpoint
CREATE INDEX "devices_store" ON "devices" USING btree ("store_id");--> statement-breakpoint
ALTER TABLE "usages" ADD CONSTRAINT "usages_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "usages_device_sale" ON "usages" USING btree ("device_id","device_sale_id") WHERE "usages"."device_id" is not null;--> statement-breakpoint
ALTER TABLE "usages" ADD CONSTRAINT "usages_one_key" CHECK (("usages"."device_id" is null and "usages"."device_sale_id" is null) or ("usages"."device_id" is not null and "usages"."device_sale_id" is not null and "usages"."source_id" is null));--> statement-breakpoint
ALTER TABLE "usages" ADD CONSTRAINT "usages_amount_range" CHECK ("usages"."amount" between -10000000 and 10000000);