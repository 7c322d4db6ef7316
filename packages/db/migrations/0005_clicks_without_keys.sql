ALTER TABLE "clicks" DROP CONSTRAINT "clicks_link_id_links_id_fk";
--> statement-breakpoint
ALTER TABLE "clicks" DROP COLUMN "id";
--> statement-breakpoint
-- What the dropped foreign key's ON DELETE CASCADE did, once per statement instead of once per row:
-- a link's clicks go with it, however the link is deleted (directly, or with its user or domain).
CREATE FUNCTION clicks_of_deleted_links() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM clicks WHERE link_id IN (SELECT id FROM deleted_links);
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER links_delete_clicks AFTER DELETE ON links REFERENCING OLD TABLE AS deleted_links
  FOR EACH STATEMENT EXECUTE FUNCTION clicks_of_deleted_links();
