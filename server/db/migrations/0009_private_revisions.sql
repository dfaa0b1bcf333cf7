-- Revisions and ids that tell a member nothing of other stores. Until now every store-year's version
-- came from one sequence (usage_versions), so a member could count every other store's write
-- statements, and device and alert ids counted every store's devices and every user's alerts.
CREATE TABLE "usage_epoch" (
	"id" integer PRIMARY KEY NOT NULL,
	"epoch" bigint NOT NULL,
	CONSTRAINT "usage_epoch_one" CHECK ("usage_epoch"."id" = 1)
);
--> statement-breakpoint
-- Random ids in the columns' own types (devices: integer, 1 to 2^31 - 1; alerts: bigint, 1 to 2^53 - 1,
-- a JavaScript number's safe range), drawn from gen_random_uuid (a strong random source), drawn again
-- in the rare case the id is taken. Existing rows keep theirs.
CREATE FUNCTION new_device_id() RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  candidate integer;
BEGIN
  LOOP
    candidate := 1 + (('x' || substr(md5(gen_random_uuid()::text), 1, 8))::bit(32)::bigint % 2147483647)::integer;
    EXIT WHEN NOT EXISTS (SELECT 1 FROM devices WHERE id = candidate);
  END LOOP;
  RETURN candidate;
END $$;
--> statement-breakpoint
CREATE FUNCTION new_alert_id() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  candidate bigint;
BEGIN
  LOOP
    candidate := 1 + ('x' || substr(md5(gen_random_uuid()::text), 1, 14))::bit(56)::bigint % 9007199254740991;
    EXIT WHEN NOT EXISTS (SELECT 1 FROM alerts WHERE id = candidate);
  END LOOP;
  RETURN candidate;
END $$;
--> statement-breakpoint
ALTER TABLE "alerts" ALTER COLUMN "id" DROP IDENTITY;--> statement-breakpoint
ALTER TABLE "alerts" ALTER COLUMN "id" SET DEFAULT new_alert_id();--> statement-breakpoint
ALTER TABLE "devices" ALTER COLUMN "id" DROP IDENTITY;--> statement-breakpoint
ALTER TABLE "devices" ALTER COLUMN "id" SET DEFAULT new_device_id();--> statement-breakpoint
-- A store-year's revision is its own count: version + 1 under the year's row lock, which every writer
-- of the year takes (the usages trigger below, the pruning of the log). A new store-year starts at
-- epoch * 10^8 + 1. The epoch is minutes since 2026-01-01 UTC when it was last advanced (or one more
-- than before, if that is higher), so it only grows, also across a restore of an older copy: advanced
-- by a deletion of usage_years rows whose store remains (a year re-created later starts above every
-- version it had) and by usage_restart_revisions() after a restore (every year moves to the new epoch).
CREATE FUNCTION usage_epoch_advance(minimum bigint DEFAULT 0) RETURNS bigint LANGUAGE sql VOLATILE AS $$
  UPDATE usage_epoch SET epoch = greatest(epoch + 1, minimum,
    floor(extract(epoch FROM clock_timestamp() - timestamptz '2026-01-01 00:00:00+00') / 60)::bigint)
  WHERE id = 1 RETURNING epoch
$$;
--> statement-breakpoint
-- The start: above every version handed out so far (the old sequence's, which clients may keep), so
-- every kept revision is told to reset once (log_from), and the changes logged under the old numbers go.
INSERT INTO usage_epoch (id, epoch) VALUES (1, 0);
--> statement-breakpoint
SELECT usage_epoch_advance(greatest(
  (SELECT coalesce(max(version), 0) FROM usage_years),
  (SELECT coalesce(last_value, 0) FROM usage_versions)) / 100000000 + 1);
--> statement-breakpoint
UPDATE usage_years SET version = (SELECT epoch FROM usage_epoch) * 100000000 + 1, log_from = (SELECT epoch FROM usage_epoch) * 100000000 + 1;
--> statement-breakpoint
DELETE FROM usage_changes;
--> statement-breakpoint
-- After a restore of an older copy (restoreSnapshot runs it; on PostgreSQL the operator runs
-- `SELECT usage_restart_revisions()` after restoring a backup): a new epoch above the last minute the
-- replaced database can have used, every year's version moved to it and the log emptied, so a client
-- or server keeping any revision of before (of the copy's time or the lost one's) is told to reset.
CREATE FUNCTION usage_restart_revisions() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  next_epoch bigint;
BEGIN
  next_epoch := usage_epoch_advance(
    floor(extract(epoch FROM clock_timestamp() - timestamptz '2026-01-01 00:00:00+00') / 60)::bigint + 1);
  PERFORM 1 FROM usage_years ORDER BY store_id, year FOR UPDATE;
  UPDATE usage_years SET version = next_epoch * 100000000 + 1, log_from = next_epoch * 100000000 + 1;
  DELETE FROM usage_changes;
  RETURN next_epoch;
END $$;
--> statement-breakpoint
-- A year's row deleted while its store remains (by hand), or the table emptied: a year made again
-- must start above every revision it had, so the epoch advances. A store's deletion (its rows going
-- with it) does not: its ids are never given again, and other stores' members see nothing of it.
CREATE FUNCTION usage_years_dropped() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM usage_epoch_advance();
  ELSIF EXISTS (SELECT 1 FROM dropped d JOIN stores s ON s.id = d.store_id) THEN
    PERFORM usage_epoch_advance();
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER usage_years_delete AFTER DELETE ON usage_years REFERENCING OLD TABLE AS dropped
  FOR EACH STATEMENT EXECUTE FUNCTION usage_years_dropped();
--> statement-breakpoint
CREATE TRIGGER usage_years_truncate AFTER TRUNCATE ON usage_years
  FOR EACH STATEMENT EXECUTE FUNCTION usage_years_dropped();
--> statement-breakpoint
-- As in migration 0007, but the revision is the year's own: version + 1 (ON CONFLICT DO UPDATE
-- evaluates it on the row it has locked, the latest committed one), or the epoch's first for a new
-- store-year. Per statement and store-year one revision; at commit `store:year:revision` is notified.
CREATE OR REPLACE FUNCTION usage_changes_logged() RETURNS trigger LANGUAGE plpgsql AS $$
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
      SELECT y.store_id, y.year, (SELECT epoch FROM usage_epoch WHERE id = 1) * 100000000 + 1,
        y.count_change, y.sum_change FROM years y
      WHERE EXISTS (SELECT 1 FROM stores s WHERE s.id = y.store_id)
      ORDER BY 1, 2
      ON CONFLICT (store_id, year) DO UPDATE SET version = u.version + 1,
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
DROP SEQUENCE usage_versions;
