CREATE TABLE "machines" (
	"store_id" integer NOT NULL,
	"machine" text NOT NULL,
	"name" text,
	"kind" text,
	"reported_kind" text,
	"state" text,
	"state_since" timestamp with time zone,
	"code" text,
	"device_id" integer,
	"reported_at" timestamp with time zone,
	"last_sale_at" timestamp (3) with time zone,
	"first_seen_at" timestamp with time zone NOT NULL,
	CONSTRAINT "machines_store_id_machine_pk" PRIMARY KEY("store_id","machine"),
	CONSTRAINT "machines_kind" CHECK ("machines"."kind" is null or "machines"."kind" in ('washer', 'dryer', 'other')),
	CONSTRAINT "machines_reported_kind" CHECK ("machines"."reported_kind" is null or "machines"."reported_kind" in ('washer', 'dryer', 'other')),
	CONSTRAINT "machines_state" CHECK ("machines"."state" is null or "machines"."state" in ('idle', 'running', 'error', 'offline'))
);
--> statement-breakpoint
CREATE TABLE "payment_failures" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "payment_failures_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"store_id" integer NOT NULL,
	"device_id" integer NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"count" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "terminal" text;--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "terminal_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "usages" ADD COLUMN "machine" text;--> statement-breakpoint
ALTER TABLE "usages" ADD COLUMN "method" text;--> statement-breakpoint
ALTER TABLE "usages" ADD COLUMN "refund_of" text;--> statement-breakpoint
ALTER TABLE "machines" ADD CONSTRAINT "machines_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "machines" ADD CONSTRAINT "machines_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_failures" ADD CONSTRAINT "payment_failures_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_failures" ADD CONSTRAINT "payment_failures_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "payment_failures_store_at" ON "payment_failures" USING btree ("store_id","at");--> statement-breakpoint
CREATE INDEX "usages_refunds" ON "usages" USING btree ("device_id","refund_of") WHERE "usages"."refund_of" is not null;--> statement-breakpoint
ALTER TABLE "devices" ADD CONSTRAINT "devices_terminal" CHECK ("devices"."terminal" is null or "devices"."terminal" in ('ok', 'down'));--> statement-breakpoint
ALTER TABLE "usages" ADD CONSTRAINT "usages_method" CHECK ("usages"."method" is null or "usages"."method" in ('card', 'cash', 'coin', 'mobile', 'point', 'other'));--> statement-breakpoint
ALTER TABLE "usages" ADD CONSTRAINT "usages_refund_of" CHECK ("usages"."refund_of" is null or ("usages"."device_id" is not null and "usages"."amount" < 0));