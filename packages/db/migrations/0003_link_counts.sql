CREATE TABLE "link_counts" (
	"user_id" integer NOT NULL,
	"shard" smallint NOT NULL,
	"n" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "link_counts_user_id_shard_pk" PRIMARY KEY("user_id","shard")
);
