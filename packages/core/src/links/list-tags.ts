import { sql } from "drizzle-orm";
import { queryRows } from "@shortener/db";
import type { Ctx } from "../context.ts";

/** A tag of the workspace and how many of its links carry it. */
export type TagCount = { name: string; count: number };

/**
 * CONTRACT §25: the tags of the caller's workspace with how many links carry each, most used first (ties
 * by name). Tags that differ only in case are one tag, shown as the oldest link spells it.
 */
export async function listTags({ ctx }: { ctx: Ctx }): Promise<TagCount[]> {
  const rows = await queryRows<{ name: string; count: unknown }>(
    ctx.db,
    sql`select (array_agg(u.tag order by links.id))[1] as name, count(*) as count
        from links, unnest(links.tags, links.tag_keys) as u(tag, key)
        where links.workspace_id = ${ctx.actor.workspaceId}::int and links.tag_keys <> '{}'::text[]
        group by u.key
        order by count(*) desc, u.key collate "C"`,
  );
  return rows.map((r) => ({ name: r.name, count: Number(r.count) }));
}
