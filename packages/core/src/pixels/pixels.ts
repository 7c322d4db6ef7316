import { and, eq, inArray } from "drizzle-orm";
import { linkPixels, links, pixels } from "@shortener/db";
import { pixelColumns, type Pixel } from "./pixel-columns.ts";
import { pixelAuditView } from "../audit/audit-views.ts";
import { recordAudit } from "../audit/record-audit.ts";
import { withTransaction, type Ctx } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { notifyChange } from "../changes/changes.ts";
import { listOwnedRows } from "../lists/list-owned-rows.ts";
import type { Page } from "../lists/pagination.ts";
import { parseFields, parseInput, throwIfErrors } from "../validation/fields.ts";
import { CreatePixelShape, ListPixelsInput, UpdatePixelShape, type CreatePixelInput, type UpdatePixelInput } from "./schemas.ts";

export async function getPixel({ ctx, id }: { ctx: Ctx; id: number }): Promise<Pixel> {
  const [row] = await ctx.db
    .select(pixelColumns)
    .from(pixels)
    .where(and(eq(pixels.id, id), eq(pixels.workspaceId, ctx.actor.workspaceId)));
  if (!row) throw new NotFoundError("Pixel");
  return row;
}

export async function listPixels({ ctx, input }: { ctx: Ctx; input: ListPixelsInput | undefined }): Promise<Page<Pixel>> {
  const params = parseInput(ListPixelsInput, input ?? {});
  return listOwnedRows<Pixel>({
    db: ctx.db,
    table: pixels,
    select: pixelColumns,
    workspaceId: ctx.actor.workspaceId,
    workspaceColumn: pixels.workspaceId,
    idColumn: pixels.id,
    search: { column: pixels.name, term: params.search },
    sortColumn: params.sort_by === "name" ? pixels.name : pixels.id,
    sort: params.sort,
    page: params.page,
    perPage: params.per_page,
  });
}

export async function createPixel({ ctx, input }: { ctx: Ctx; input: CreatePixelInput }): Promise<Pixel> {
  const { values, errors } = parseFields(CreatePixelShape, input);
  throwIfErrors(errors);
  return withTransaction(ctx, async (tx) => {
    const now = tx.now();
    const [row] = await tx.db
      .insert(pixels)
      .values({ workspaceId: tx.actor.workspaceId, name: values.name as string, type: values.type as string, value: values.value as string, createdAt: now, updatedAt: now })
      .returning(pixelColumns);
    if (!row) throw new Error("insert returned no row");
    await recordAudit(tx, { action: "pixel.created", objectType: "pixel", objectId: row.id, after: pixelAuditView(row) });
    return row;
  });
}

/** Links that carry a pixel show its new snippet: their cached copies are announced as changed. */
async function notifyLinksOfPixel(ctx: Ctx, pixelId: number): Promise<void> {
  const rows = await ctx.db
    .select({ id: links.id, domainId: links.domainId, alias: links.alias })
    .from(links)
    .where(inArray(links.id, ctx.db.select({ id: linkPixels.linkId }).from(linkPixels).where(eq(linkPixels.pixelId, pixelId))));
  for (const row of rows) await notifyChange(ctx.db, { kind: "link", ...row });
}

export async function updatePixel({ ctx, id, input }: { ctx: Ctx; id: number; input: UpdatePixelInput }): Promise<Pixel> {
  const existing = await getPixel({ ctx, id });
  const { values, errors } = parseFields(UpdatePixelShape, input);
  throwIfErrors(errors);
  return withTransaction(ctx, async (tx) => {
    const [row] = await tx.db
      .update(pixels)
      .set({
        ...(values.name !== undefined ? { name: values.name } : {}),
        ...(values.type !== undefined ? { type: values.type } : {}),
        ...(values.value !== undefined ? { value: values.value } : {}),
        updatedAt: tx.now(),
      })
      .where(and(eq(pixels.id, id), eq(pixels.workspaceId, tx.actor.workspaceId)))
      .returning(pixelColumns);
    if (!row) throw new NotFoundError("Pixel");
    await notifyLinksOfPixel(tx, id);
    await recordAudit(tx, { action: "pixel.updated", objectType: "pixel", objectId: id, before: pixelAuditView(existing), after: pixelAuditView(row) });
    return row;
  });
}

/** Deletes the caller's pixel; the foreign key detaches it from its links. */
export async function deletePixel({ ctx, id }: { ctx: Ctx; id: number }): Promise<{ id: number }> {
  return withTransaction(ctx, async (tx) => {
    const existing = await getPixel({ ctx: tx, id });
    await notifyLinksOfPixel(tx, id);
    await tx.db.delete(pixels).where(and(eq(pixels.id, id), eq(pixels.workspaceId, tx.actor.workspaceId)));
    await recordAudit(tx, { action: "pixel.deleted", objectType: "pixel", objectId: id, before: pixelAuditView(existing) });
    return { id };
  });
}
