ALTER TABLE "alerts" ADD COLUMN "push_pending" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "alerts_push_pending" ON "alerts" USING btree ("id") WHERE "alerts"."push_pending";