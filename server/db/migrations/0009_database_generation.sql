CREATE TABLE "database_generation" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"generation" text NOT NULL,
	"reason" text NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "database_generation_one_row" CHECK ("database_generation"."id" = 1)
);
--> statement-breakpoint
-- Hand-written: the one row, with a first random generation.
INSERT INTO "database_generation" ("id", "generation", "reason") VALUES (1, gen_random_uuid()::text, 'created');
