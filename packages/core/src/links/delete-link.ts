import { and, eq } from "drizzle-orm";
import { links } from "@shortener/db";
import { withTransaction, type Ctx } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { notifyChange } from "../changes/changes.ts";

export async function deleteLink({ ctx, id }: { ctx: Ctx; id: number }): Promise<{ id: number }> {
  return withTransaction(ctx, async (tx) => {
    const [row] = await tx.db
      .delete(links)
      .where(and(eq(links.id, id), eq(links.userId, tx.actor.userId)))
      .returning({ id: links.id, domainId: links.domainId, alias: links.alias });
    if (!row) throw new NotFoundError("Link");
    await notifyChange(tx.db, { kind: "link", ...row });
    return { id: row.id };
  });
}
