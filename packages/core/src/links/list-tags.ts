import { sql } from "drizzle-orm";
import { queryRows } from "@shortener/db";
import type { Ctx } from "../context.ts";

/** A tag of the workspace and how many of its links carry it. */
export type TagCount = { name: string; count: number };

/**
 * CONTRACT §25: the tags of the caller's workspace with how many links carry each, most used first (ties
 * by name). Tags that differ only in case are one tag, shown as it was first written. Read from the
 * trigger-kept `workspace_tags` (one row a tag), not from the links.
 */
export async function listTags({ ctx }: { ctx: Ctx }): Promise<TagCount[]> {
  const rows = await queryRows<{ name: string; count: unknown }>(
    ctx.db,
    sql`select name, n as count from workspace_tags
        where workspace_id = ${ctx.actor.workspaceId}::int and n > 0
        order by n desc, key collate "C"`,
  );
  return rows.map((r) => ({ name: r.name, count: Number(r.count) }));
}
