ALTER TABLE "devices" ADD COLUMN "terminal_confirmed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "machines" ADD COLUMN "state_confirmed_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "payment_failures_at" ON "payment_failures" USING btree ("at");