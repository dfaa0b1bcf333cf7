-- Versions come from one sequence for the whole database, so they only ever grow: emptying
-- usage_years (or restoring it from an older backup) can never hand out a version a server has already
-- cached an answer under.
CREATE SEQUENCE usage_versions;
--> statement-breakpoint
SELECT setval('usage_versions', greatest(coalesce((SELECT max(version) FROM usage_years), 0), 1));
--> statement-breakpoint
CREATE OR REPLACE FUNCTION usage_years_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_years (store_id, year, version)
  SELECT store_id, extract(year FROM created_at AT TIME ZONE 'UTC')::int, nextval('usage_versions') FROM changed GROUP BY 1, 2
  ON CONFLICT (store_id, year) DO UPDATE SET version = nextval('usage_versions');
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION usage_years_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE usage_years SET version = nextval('usage_versions')
  WHERE (store_id, year) IN (SELECT store_id, extract(year FROM created_at AT TIME ZONE 'UTC')::int FROM changed_before);
  RETURN NULL;
END $$;
