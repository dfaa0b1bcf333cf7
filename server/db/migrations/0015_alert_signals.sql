ALTER TABLE "alert_settings" ADD COLUMN "device_offline_minutes" integer DEFAULT 10 NOT NULL;--> statement-breakpoint
ALTER TABLE "alert_settings" ADD COLUMN "machine_error" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "alert_settings" ADD COLUMN "machine_silent" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "alert_settings" ADD COLUMN "payment_terminal" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "alert_settings" ADD CONSTRAINT "alert_settings_device_offline_minutes" CHECK ("alert_settings"."device_offline_minutes" between 5 and 30);