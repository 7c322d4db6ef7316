-- Keeps link_counts equal to count(*) of links per user: one statement-level trigger per direction,
-- reading the statement's transition table, so bulk inserts, cascades and COPY cost one grouped upsert.
-- Each statement adds to one of 16 shards picked at random, so concurrent writers rarely share a row.
CREATE FUNCTION link_counts_add() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  shard_no smallint := floor(random() * 16)::smallint;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO link_counts (user_id, shard, n)
      SELECT user_id, shard_no, count(*) FROM inserted_links GROUP BY user_id ORDER BY user_id
      ON CONFLICT (user_id, shard) DO UPDATE SET n = link_counts.n + excluded.n;
  ELSE
    INSERT INTO link_counts (user_id, shard, n)
      SELECT user_id, shard_no, -count(*) FROM deleted_links GROUP BY user_id ORDER BY user_id
      ON CONFLICT (user_id, shard) DO UPDATE SET n = link_counts.n + excluded.n;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER links_count_insert AFTER INSERT ON links REFERENCING NEW TABLE AS inserted_links
  FOR EACH STATEMENT EXECUTE FUNCTION link_counts_add();
--> statement-breakpoint
CREATE TRIGGER links_count_delete AFTER DELETE ON links REFERENCING OLD TABLE AS deleted_links
  FOR EACH STATEMENT EXECUTE FUNCTION link_counts_add();
--> statement-breakpoint
INSERT INTO link_counts (user_id, shard, n) SELECT user_id, 0, count(*) FROM links GROUP BY user_id
  ON CONFLICT (user_id, shard) DO UPDATE SET n = excluded.n;
