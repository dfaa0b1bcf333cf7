-- A new store-year's version and log_from start at its epoch's base (epoch x 10^8), never at 0: a year
-- made again after a restore (or pre-made by a device's batch that spans two years, server/devices/
-- ingest.ts) then tells whoever keeps a revision of an earlier epoch to reset (log_from above it), and
-- its versions never meet numbers another timeline handed out.
CREATE FUNCTION usage_epoch_base() RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT epoch * 100000000 FROM usage_epoch WHERE id = 1
$$;
--> statement-breakpoint
ALTER TABLE "usage_years" ALTER COLUMN "version" SET DEFAULT usage_epoch_base();--> statement-breakpoint
ALTER TABLE "usage_years" ALTER COLUMN "log_from" SET DEFAULT usage_epoch_base();