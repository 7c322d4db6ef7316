-- One statement-level trigger per direction on links instead of two (docs/adr/0051-tags-utm-weighted-rotation.md,
-- issue #26): link_counts_add() now also keeps workspace_tags (migration 0026's workspace_tags_add(), the
-- same statements), and runs them only when the statement's links carry a tag. A create without tags, the
-- usual one, paid a second plpgsql call over the transition table that found nothing to do (25-40 µs of
-- PostgreSQL time a create on this machine). The counts come first, as before (triggers fire by name:
-- links_count_* before links_tags_*).
CREATE OR REPLACE FUNCTION link_counts_add() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  shard_no smallint := floor(random() * 16)::smallint;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO link_counts (workspace_id, shard, n)
      SELECT workspace_id, shard_no, count(*) FROM inserted_links GROUP BY workspace_id ORDER BY workspace_id
      ON CONFLICT (workspace_id, shard) DO UPDATE SET n = link_counts.n + excluded.n;
    IF EXISTS (SELECT FROM inserted_links WHERE tag_keys <> '{}'::text[]) THEN
      INSERT INTO workspace_tags (workspace_id, key, name, n)
        SELECT l.workspace_id, u.key, (array_agg(u.tag ORDER BY l.id))[1], count(*)
        FROM inserted_links l, unnest(l.tags, l.tag_keys) AS u(tag, key)
        WHERE l.tag_keys <> '{}'::text[]
        GROUP BY l.workspace_id, u.key ORDER BY l.workspace_id, u.key
        ON CONFLICT (workspace_id, key) DO UPDATE SET n = workspace_tags.n + excluded.n;
    END IF;
  ELSE
    INSERT INTO link_counts (workspace_id, shard, n)
      SELECT workspace_id, shard_no, -count(*) FROM deleted_links GROUP BY workspace_id ORDER BY workspace_id
      ON CONFLICT (workspace_id, shard) DO UPDATE SET n = link_counts.n + excluded.n;
    IF EXISTS (SELECT FROM deleted_links WHERE tag_keys <> '{}'::text[]) THEN
      UPDATE workspace_tags t SET n = t.n - g.n
        FROM (SELECT l.workspace_id, u.key, count(*) AS n
              FROM deleted_links l, unnest(l.tag_keys) AS u(key)
              WHERE l.tag_keys <> '{}'::text[] GROUP BY l.workspace_id, u.key) g
        WHERE t.workspace_id = g.workspace_id AND t.key = g.key;
      DELETE FROM workspace_tags t
        USING (SELECT DISTINCT l.workspace_id, u.key FROM deleted_links l, unnest(l.tag_keys) AS u(key) WHERE l.tag_keys <> '{}'::text[]) g
        WHERE t.workspace_id = g.workspace_id AND t.key = g.key AND t.n <= 0;
    END IF;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
DROP TRIGGER "links_tags_insert" ON "links";
--> statement-breakpoint
DROP TRIGGER "links_tags_delete" ON "links";
--> statement-breakpoint
DROP FUNCTION workspace_tags_add();
