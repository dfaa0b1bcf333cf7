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
--> statement-breakpoint
-- Hand-written: the one step for a database that may have gone back in time (a snapshot restored, an
-- embedded database not closed cleanly, a PostgreSQL backup restored): a new generation, so devices send
-- again what they were acknowledged, and every year's revision moved to a new epoch (migration 0009), so
-- no revision handed out before comes again with other figures. Answers the new generation.
CREATE FUNCTION database_went_back(reason text) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  next_generation text;
BEGIN
  UPDATE database_generation SET generation = gen_random_uuid()::text, reason = database_went_back.reason,
    changed_at = now() WHERE id = 1 RETURNING generation INTO next_generation;
  PERFORM usage_restart_revisions();
  RETURN next_generation;
END $$;
