import { sql } from "drizzle-orm";
import { pgArray, queryRows, type Db } from "@shortener/db";
import { tagKey } from "./tags.ts";

/**
 * A link's tag columns: the tags as they are shown, and their keys (lower-cased) that the `tag` filter
 * and the counts match under the GIN index `links_tag_keys_idx`.
 */
export function tagColumns(tags: readonly string[]): { tags: string[]; tagKeys: string[] } {
  return { tags: [...tags], tagKeys: tags.map(tagKey) };
}

/**
 * The tags spelled as the workspace already spells them: a tag some link of the workspace carries keeps
 * that link's spelling (the oldest such link's), so `Sale` and `sale` stay one tag as it was first
 * written; a new tag keeps the caller's. One indexed query, only when tags are sent.
 */
export async function respellTags(db: Db, workspaceId: number, tags: readonly string[]): Promise<string[]> {
  if (!tags.length) return [];
  const keys = tags.map(tagKey);
  const rows = await queryRows<{ tag: string; key: string }>(
    db,
    sql`select distinct on (u.key) u.tag, u.key
        from links, unnest(links.tags, links.tag_keys) as u(tag, key)
        where links.workspace_id = ${workspaceId}::int and links.tag_keys <> '{}'::text[]
          and links.tag_keys && ${pgArray(keys)}::text[] and u.key = any(${pgArray(keys)}::text[])
        order by u.key, links.id`,
  );
  const spelled = new Map(rows.map((r) => [r.key, r.tag]));
  return tags.map((t) => spelled.get(tagKey(t)) ?? t);
}
