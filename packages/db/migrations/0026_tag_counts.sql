CREATE TABLE "workspace_tags" (
	"workspace_id" integer NOT NULL,
	"key" text NOT NULL,
	"name" text NOT NULL,
	"n" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "workspace_tags_workspace_id_key_pk" PRIMARY KEY("workspace_id","key")
);
--> statement-breakpoint
-- Keeps workspace_tags equal to the tags of each workspace's links with their counts (CONTRACT §25,
-- ADR 0051). Inserts and deletes: one statement-level trigger per direction on the statement's transition
-- table, so a bulk insert costs one grouped upsert, ordered by key so concurrent writers lock rows in one
-- order. Updates: a row-level trigger that fires only when a statement sets the tag columns (or moves a
-- link to another workspace) and the keys changed, so click counts and admissions never pay for it.
CREATE FUNCTION workspace_tags_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO workspace_tags (workspace_id, key, name, n)
      SELECT l.workspace_id, u.key, (array_agg(u.tag ORDER BY l.id))[1], count(*)
      FROM inserted_links l, unnest(l.tags, l.tag_keys) AS u(tag, key)
      WHERE l.tag_keys <> '{}'::text[]
      GROUP BY l.workspace_id, u.key ORDER BY l.workspace_id, u.key
      ON CONFLICT (workspace_id, key) DO UPDATE SET n = workspace_tags.n + excluded.n;
  ELSE
    UPDATE workspace_tags t SET n = t.n - g.n
      FROM (SELECT l.workspace_id, u.key, count(*) AS n
            FROM deleted_links l, unnest(l.tag_keys) AS u(key)
            WHERE l.tag_keys <> '{}'::text[] GROUP BY l.workspace_id, u.key) g
      WHERE t.workspace_id = g.workspace_id AND t.key = g.key;
    DELETE FROM workspace_tags t
      USING (SELECT DISTINCT l.workspace_id, u.key FROM deleted_links l, unnest(l.tag_keys) AS u(key) WHERE l.tag_keys <> '{}'::text[]) g
      WHERE t.workspace_id = g.workspace_id AND t.key = g.key AND t.n <= 0;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER links_tags_insert AFTER INSERT ON links REFERENCING NEW TABLE AS inserted_links
  FOR EACH STATEMENT EXECUTE FUNCTION workspace_tags_add();
--> statement-breakpoint
CREATE TRIGGER links_tags_delete AFTER DELETE ON links REFERENCING OLD TABLE AS deleted_links
  FOR EACH STATEMENT EXECUTE FUNCTION workspace_tags_add();
--> statement-breakpoint
CREATE FUNCTION workspace_tags_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  gone text[] := OLD.tag_keys;
  came text[] := NEW.tag_keys;
BEGIN
  IF OLD.workspace_id = NEW.workspace_id THEN
    gone := ARRAY(SELECT unnest(OLD.tag_keys) EXCEPT SELECT unnest(NEW.tag_keys));
    came := ARRAY(SELECT unnest(NEW.tag_keys) EXCEPT SELECT unnest(OLD.tag_keys));
  END IF;
  IF cardinality(gone) > 0 THEN
    UPDATE workspace_tags t SET n = t.n - 1 WHERE t.workspace_id = OLD.workspace_id AND t.key = ANY (gone);
    DELETE FROM workspace_tags t WHERE t.workspace_id = OLD.workspace_id AND t.key = ANY (gone) AND t.n <= 0;
  END IF;
  IF cardinality(came) > 0 THEN
    INSERT INTO workspace_tags (workspace_id, key, name, n)
      SELECT NEW.workspace_id, u.key, u.tag, 1 FROM unnest(NEW.tags, NEW.tag_keys) AS u(tag, key)
      WHERE u.key = ANY (came) ORDER BY u.key
      ON CONFLICT (workspace_id, key) DO UPDATE SET n = workspace_tags.n + 1;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER links_tags_update AFTER UPDATE OF tags, tag_keys, workspace_id ON links FOR EACH ROW
  WHEN (OLD.tag_keys IS DISTINCT FROM NEW.tag_keys OR OLD.workspace_id IS DISTINCT FROM NEW.workspace_id)
  EXECUTE FUNCTION workspace_tags_change();
--> statement-breakpoint
INSERT INTO workspace_tags (workspace_id, key, name, n)
  SELECT l.workspace_id, u.key, (array_agg(u.tag ORDER BY l.id))[1], count(*)
  FROM links l, unnest(l.tags, l.tag_keys) AS u(tag, key)
  WHERE l.tag_keys <> '{}'::text[]
  GROUP BY l.workspace_id, u.key;
