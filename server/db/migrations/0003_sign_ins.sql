CREATE TABLE "sign_ins" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sign_ins" ADD CONSTRAINT "sign_ins_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sign_ins_user" ON "sign_ins" USING btree ("user_id");--> statement-breakpoint
-- Every existing family becomes a sign-in, revoked if any of its tokens was, before the columns that said so go.
INSERT INTO "sign_ins" ("id", "user_id", "expires_at", "revoked_at", "created_at")
SELECT "family_id", min("user_id"), max("expires_at"), max("revoked_at"), min("created_at")
FROM "refresh_tokens" GROUP BY "family_id";--> statement-breakpoint
ALTER TABLE "refresh_tokens" DROP CONSTRAINT "refresh_tokens_user_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD CONSTRAINT "refresh_tokens_family_id_sign_ins_id_fk" FOREIGN KEY ("family_id") REFERENCES "public"."sign_ins"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refresh_tokens" DROP COLUMN "user_id";--> statement-breakpoint
ALTER TABLE "refresh_tokens" DROP COLUMN "expires_at";--> statement-breakpoint
ALTER TABLE "refresh_tokens" DROP COLUMN "revoked_at";--> statement-breakpoint
ALTER TABLE "login_codes" ADD COLUMN "client_key" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "login_codes" DROP CONSTRAINT "login_codes_pkey";--> statement-breakpoint
ALTER TABLE "login_codes" ADD CONSTRAINT "login_codes_phone_client_key_pk" PRIMARY KEY("phone","client_key");--> statement-breakpoint
ALTER TABLE "phone_locks" ADD COLUMN "client_key" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "phone_locks" DROP CONSTRAINT "phone_locks_pkey";--> statement-breakpoint
ALTER TABLE "phone_locks" ADD CONSTRAINT "phone_locks_phone_client_key_pk" PRIMARY KEY("phone","client_key");
