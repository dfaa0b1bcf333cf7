CREATE TABLE "message_failures" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "message_failures_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"at" timestamp with time zone NOT NULL,
	"purpose" text NOT NULL,
	"channel" text NOT NULL,
	"outcome" text NOT NULL,
	"reason" text,
	"code" text NOT NULL,
	"http_status" integer,
	"detail" text NOT NULL,
	"recipient" text NOT NULL,
	"attempts" integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX "message_failures_at" ON "message_failures" USING btree ("at");