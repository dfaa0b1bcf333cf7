CREATE TABLE "known_device_epochs" (
	"phone" text PRIMARY KEY NOT NULL,
	"epoch" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "login_codes" ADD COLUMN "address" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "login_codes" ADD COLUMN "cookieless" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "phone_locks" ADD COLUMN "last_failure_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
CREATE INDEX "login_codes_cookieless" ON "login_codes" USING btree ("phone","address","expires_at");--> statement-breakpoint
-- Codes asked for before browsers had ids were bound to their address: a client without a cookie may still use them there.
UPDATE "login_codes" SET "address" = "client_key", "cookieless" = true;
