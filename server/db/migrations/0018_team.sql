CREATE TABLE "invites" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "invites_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"store_id" integer NOT NULL,
	"phone" text NOT NULL,
	"role" text NOT NULL,
	"name" text,
	"shows_money" boolean DEFAULT true NOT NULL,
	"invited_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "invites_role" CHECK ("invites"."role" in ('owner', 'manager', 'staff'))
);
--> statement-breakpoint
CREATE TABLE "team_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "team_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"store_id" integer NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"action" text NOT NULL,
	"actor_id" integer,
	"actor_name" text,
	"subject_id" integer,
	"subject_name" text,
	"subject_phone" text NOT NULL,
	"role" text,
	"shows_money" boolean
);
--> statement-breakpoint
ALTER TABLE "memberships" ADD COLUMN "shows_money" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "memberships" ADD COLUMN "name" text;--> statement-breakpoint
ALTER TABLE "memberships" ADD COLUMN "invited_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "invites" ADD CONSTRAINT "invites_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invites" ADD CONSTRAINT "invites_invited_by_users_id_fk" FOREIGN KEY ("invited_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_log" ADD CONSTRAINT "team_log_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "invites_phone" ON "invites" USING btree ("phone","expires_at");--> statement-breakpoint
CREATE INDEX "invites_store" ON "invites" USING btree ("store_id");--> statement-breakpoint
CREATE INDEX "team_log_store_at" ON "team_log" USING btree ("store_id","at");--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_role" CHECK ("memberships"."role" in ('owner', 'manager', 'staff'));