CREATE TABLE "usage_changes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "usage_changes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"store_id" integer NOT NULL,
	"year" integer NOT NULL,
	"rev" bigint NOT NULL,
	"op" text NOT NULL,
	"created_at" timestamp (3) with time zone,
	"amount" integer,
	"logged_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "usage_changes_op" CHECK ("usage_changes"."op" in ('put', 'del', 'reset'))
);
--> statement-breakpoint
ALTER TABLE "usage_years" ADD COLUMN "record_count" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_years" ADD COLUMN "amount_sum" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_years" ADD COLUMN "log_from" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "usage_changes_year_rev" ON "usage_changes" USING btree ("store_id","year","rev");--> statement-breakpoint
CREATE INDEX "usage_changes_logged" ON "usage_changes" USING btree ("logged_at");--> statement-breakpoint
-- The log starts now: the running totals from the records already kept, and no change before today's
-- version is in the log (a client with an older revision is told to reset).
UPDATE usage_years u SET record_count = s.n, amount_sum = s.total, log_from = u.version
FROM (SELECT store_id, extract(year FROM created_at AT TIME ZONE 'UTC')::int AS year, count(*) AS n, sum(amount) AS total
      FROM usages GROUP BY 1, 2) s
WHERE u.store_id = s.store_id AND u.year = s.year;
--> statement-breakpoint
UPDATE usage_years SET log_from = version WHERE log_from < version;
--> statement-breakpoint
DROP TRIGGER usages_insert ON usages;
--> statement-breakpoint
DROP TRIGGER usages_update_old ON usages;
--> statement-breakpoint
DROP TRIGGER usages_update_new ON usages;
--> statement-breakpoint
DROP TRIGGER usages_delete ON usages;
--> statement-breakpoint
DROP FUNCTION usage_years_inserted();
--> statement-breakpoint
DROP FUNCTION usage_years_removed();
--> statement-breakpoint
-- One function for every change to usages, whoever makes it (device ingest, CSV import, admin command,
-- seed, SQL by hand). Per statement and store-year (UTC year of created_at): the store-year's row of
-- usage_years is locked (upsert in store and year order, so writers cannot deadlock) and only then
-- given its new version from the global sequence (ON CONFLICT DO UPDATE evaluates nextval after the
-- lock), which is the revision of every change the statement logs for that store-year; the running
-- record count and amount sum move with it. A statement that changes more than 1,000 records of a
-- store-year logs one `reset` instead of its rows. An update's `del` of the old row comes before the `put`. A store being deleted (its row gone) logs nothing.
-- At commit, every instance hears `store:year:revision` on the channel usage_changes.
CREATE FUNCTION usage_changes_logged() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  year_of constant text := 'extract(year FROM created_at AT TIME ZONE ''UTC'')::int';
  changed_rows text;
BEGIN
  IF TG_OP = 'INSERT' THEN
    changed_rows := format('SELECT store_id, %s AS year, ''put''::text AS op, created_at, amount FROM changed', year_of);
  ELSIF TG_OP = 'DELETE' THEN
    changed_rows := format('SELECT store_id, %s AS year, ''del''::text AS op, created_at, amount FROM changed_before', year_of);
  ELSE
    changed_rows := format('SELECT store_id, %1$s AS year, ''del''::text AS op, created_at, amount FROM changed_before
      UNION ALL SELECT store_id, %1$s AS year, ''put''::text AS op, created_at, amount FROM changed', year_of);
  END IF;
  EXECUTE format($sql$
    WITH changed_rows AS (%s),
    years AS (
      SELECT store_id, year, count(*) AS n,
        sum(CASE op WHEN 'put' THEN 1 ELSE -1 END) AS count_change,
        sum(CASE op WHEN 'put' THEN amount::bigint ELSE -amount::bigint END) AS sum_change
      FROM changed_rows GROUP BY 1, 2),
    bumped AS (
      INSERT INTO usage_years AS u (store_id, year, version, record_count, amount_sum)
      SELECT y.store_id, y.year, nextval('usage_versions'), y.count_change, y.sum_change FROM years y
      WHERE EXISTS (SELECT 1 FROM stores s WHERE s.id = y.store_id)
      ORDER BY 1, 2
      ON CONFLICT (store_id, year) DO UPDATE SET version = nextval('usage_versions'),
        record_count = u.record_count + excluded.record_count, amount_sum = u.amount_sum + excluded.amount_sum
      RETURNING u.store_id, u.year, u.version),
    logged AS (
      INSERT INTO usage_changes (store_id, year, rev, op, created_at, amount)
      SELECT * FROM (
        SELECT r.store_id, r.year, b.version, r.op, r.created_at, r.amount
        FROM changed_rows r JOIN bumped b USING (store_id, year) JOIN years y USING (store_id, year)
        WHERE y.n <= 1000
        UNION ALL
        SELECT b.store_id, b.year, b.version, 'reset', NULL, NULL
        FROM bumped b JOIN years y USING (store_id, year) WHERE y.n > 1000) logged_rows
      ORDER BY 1, 2, 4, 5)
    SELECT pg_notify('usage_changes', store_id || ':' || year || ':' || version) FROM bumped
  $sql$, changed_rows);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER usages_insert AFTER INSERT ON usages REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION usage_changes_logged();
--> statement-breakpoint
CREATE TRIGGER usages_update AFTER UPDATE ON usages REFERENCING OLD TABLE AS changed_before NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION usage_changes_logged();
--> statement-breakpoint
CREATE TRIGGER usages_delete AFTER DELETE ON usages REFERENCING OLD TABLE AS changed_before
  FOR EACH STATEMENT EXECUTE FUNCTION usage_changes_logged();
--> statement-breakpoint
-- A sign-in that ends (revoked, or deleted with its user or once expired) is heard by every instance
-- on the channel sign_ins_ended: its held changes calls end with 401 at once.
CREATE FUNCTION sign_ins_ended() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('sign_ins_ended', o.id) FROM ended_before o WHERE o.revoked_at IS NULL;
  ELSE
    PERFORM pg_notify('sign_ins_ended', n.id)
    FROM changed n JOIN changed_before o USING (id) WHERE n.revoked_at IS NOT NULL AND o.revoked_at IS NULL;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER sign_ins_update AFTER UPDATE ON sign_ins REFERENCING OLD TABLE AS changed_before NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION sign_ins_ended();
--> statement-breakpoint
CREATE TRIGGER sign_ins_delete AFTER DELETE ON sign_ins REFERENCING OLD TABLE AS ended_before
  FOR EACH STATEMENT EXECUTE FUNCTION sign_ins_ended();
