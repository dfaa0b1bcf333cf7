ALTER TABLE "alerts" ADD COLUMN "message_taken_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "message_id" text;--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "message_checked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "message_report" text;--> statement-breakpoint
CREATE INDEX "alerts_message_in_flight" ON "alerts" USING btree ("message_taken_at") WHERE "alerts"."message_status" in ('taken', 'sending');--> statement-breakpoint
CREATE INDEX "alerts_message_report_awaited" ON "alerts" USING btree ("message_checked_at") WHERE "alerts"."message_id" is not null and "alerts"."message_report" is null;