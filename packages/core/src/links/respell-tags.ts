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
 * the spelling it was first written with, so `Sale` and `sale` stay one tag; a new tag keeps the
 * caller's. One primary-key lookup a tag in the trigger-kept `workspace_tags`, only when tags are sent.
 */
export async function respellTags(db: Db, workspaceId: number, tags: readonly string[]): Promise<string[]> {
  if (!tags.length) return [];
  const keys = tags.map(tagKey);
  const rows = await queryRows<{ name: string; key: string }>(db, sql`select key, name from workspace_tags where workspace_id = ${workspaceId}::int and key = any(${pgArray(keys)}::text[]) and n > 0`);
  const spelled = new Map(rows.map((r) => [r.key, r.name]));
  return tags.map((t) => spelled.get(tagKey(t)) ?? t);
}
