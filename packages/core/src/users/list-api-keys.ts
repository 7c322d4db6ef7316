import { and, asc, count, desc, eq, isNotNull, isNull } from "drizzle-orm";
import { apiKeys } from "@shortener/db";
import type { Ctx } from "../context.ts";
import { offsetOf, type Page } from "../lists/pagination.ts";
import { parseInput } from "../validation/fields.ts";
import { ListApiKeysInput } from "./key-schemas.ts";
import { namedKeyColumns, toApiKey, type ApiKey } from "./named-key.ts";

/** The caller's named keys that are not deleted, expired ones included (CONTRACT §17), newest first by default. */
export async function listApiKeys({ ctx, input }: { ctx: Ctx; input: ListApiKeysInput }): Promise<Page<ApiKey>> {
  const params = parseInput(ListApiKeysInput, input);
  const where = and(eq(apiKeys.userId, ctx.actor.userId), isNotNull(apiKeys.name), isNull(apiKeys.revokedAt));
  const order = params.sort === "asc" ? asc : desc;
  const [rows, [total]] = await Promise.all([
    ctx.db.select(namedKeyColumns).from(apiKeys).where(where).orderBy(order(apiKeys.id)).limit(params.per_page).offset(offsetOf(params.page, params.per_page)),
    ctx.db.select({ n: count() }).from(apiKeys).where(where),
  ]);
  return { data: rows.map(toApiKey), total: total?.n ?? 0, page: params.page, perPage: params.per_page };
}
