ALTER TABLE "alert_settings" ADD COLUMN "channels" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "alert_settings" ADD COLUMN "sms_fallback" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "by_push" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "by_kakao" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "push_status" text;--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "message_pending" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "message_status" text;--> statement-breakpoint
CREATE INDEX "alerts_message_pending" ON "alerts" USING btree ("id") WHERE "alerts"."message_pending";