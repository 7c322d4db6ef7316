import { and, asc, count, desc, eq, isNotNull, isNull } from "drizzle-orm";
import { apiKeys, users } from "@shortener/db";
import type { Ctx } from "../context.ts";
import { offsetOf, type Page } from "../lists/pagination.ts";
import { parseInput } from "../validation/fields.ts";
import { ListApiKeysInput } from "./key-schemas.ts";
import { requireRole } from "../workspaces/roles.ts";
import { makerColumns, namedKeyColumns, toApiKey, type ApiKey } from "./named-key.ts";

/**
 * The named keys of the workspace the caller acts in that are not deleted, expired ones included
 * (CONTRACT §17), newest first by default, each with its maker. Admins only (CONTRACT §24).
 */
export async function listApiKeys({ ctx, input }: { ctx: Ctx; input: ListApiKeysInput }): Promise<Page<ApiKey>> {
  const params = parseInput(ListApiKeysInput, input);
  requireRole(ctx.actor, "admin");
  const where = and(eq(apiKeys.workspaceId, ctx.actor.workspaceId), isNotNull(apiKeys.name), isNull(apiKeys.revokedAt));
  const order = params.sort === "asc" ? asc : desc;
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select({ ...namedKeyColumns, ...makerColumns })
      .from(apiKeys)
      .innerJoin(users, eq(users.id, apiKeys.userId))
      .where(where)
      .orderBy(order(apiKeys.id))
      .limit(params.per_page)
      .offset(offsetOf(params.page, params.per_page)),
    ctx.db.select({ n: count() }).from(apiKeys).where(where),
  ]);
  return { data: rows.map(toApiKey), total: total?.n ?? 0, page: params.page, perPage: params.per_page };
}
