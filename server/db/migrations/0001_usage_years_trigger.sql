-- Keeps usage_years.version current for every change to usages, whoever makes it (server, admin
-- command, or SQL by hand), so cached answers and ETags can never outlive the records they describe.
CREATE FUNCTION usage_years_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_years (store_id, year, version)
  SELECT store_id, extract(year FROM created_at AT TIME ZONE 'UTC')::int, 1 FROM changed GROUP BY 1, 2
  ON CONFLICT (store_id, year) DO UPDATE SET version = usage_years.version + 1;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION usage_years_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE usage_years SET version = version + 1
  WHERE (store_id, year) IN (SELECT store_id, extract(year FROM created_at AT TIME ZONE 'UTC')::int FROM changed_before);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER usages_insert AFTER INSERT ON usages REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION usage_years_inserted();
--> statement-breakpoint
CREATE TRIGGER usages_update_old AFTER UPDATE ON usages REFERENCING OLD TABLE AS changed_before
  FOR EACH STATEMENT EXECUTE FUNCTION usage_years_removed();
--> statement-breakpoint
CREATE TRIGGER usages_update_new AFTER UPDATE ON usages REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION usage_years_inserted();
--> statement-breakpoint
CREATE TRIGGER usages_delete AFTER DELETE ON usages REFERENCING OLD TABLE AS changed_before
  FOR EACH STATEMENT EXECUTE FUNCTION usage_years_removed();
