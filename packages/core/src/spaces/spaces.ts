import { and, eq } from "drizzle-orm";
import { isUniqueViolation, spaces } from "@shortener/db";
import { spaceColumns, type Space } from "./space-columns.ts";
import { spaceAuditView } from "../audit/audit-views.ts";
import { recordAudit } from "../audit/record-audit.ts";
import { withTransaction, type Ctx } from "../context.ts";
import { NotFoundError, ValidationError } from "../errors.ts";
import { listOwnedRows } from "../lists/list-owned-rows.ts";
import type { Page } from "../lists/pagination.ts";
import { parseFields, parseInput, throwIfErrors } from "../validation/fields.ts";
import { CreateSpaceShape, ListSpacesInput, UpdateSpaceShape, type CreateSpaceInput, type UpdateSpaceInput } from "./schemas.ts";

/** A write that broke the one-name-per-user constraint is a 422 on `name`; any other error goes on as it is. */
function rethrowNameTaken(error: unknown): never {
  if (isUniqueViolation(error, "spaces_workspace_id_name_key")) throw ValidationError.field("name", "The name has already been taken.");
  throw error;
}

export async function getSpace({ ctx, id }: { ctx: Ctx; id: number }): Promise<Space> {
  const [row] = await ctx.db
    .select(spaceColumns)
    .from(spaces)
    .where(and(eq(spaces.id, id), eq(spaces.workspaceId, ctx.actor.workspaceId)));
  if (!row) throw new NotFoundError("Space");
  return row;
}

export async function listSpaces({ ctx, input }: { ctx: Ctx; input: ListSpacesInput | undefined }): Promise<Page<Space>> {
  const params = parseInput(ListSpacesInput, input ?? {});
  return listOwnedRows<Space>({
    db: ctx.db,
    table: spaces,
    select: spaceColumns,
    workspaceId: ctx.actor.workspaceId,
    workspaceColumn: spaces.workspaceId,
    idColumn: spaces.id,
    search: { column: spaces.name, term: params.search },
    sortColumn: params.sort_by === "name" ? spaces.name : spaces.id,
    sort: params.sort,
    page: params.page,
    perPage: params.per_page,
  });
}

export async function createSpace({ ctx, input }: { ctx: Ctx; input: CreateSpaceInput }): Promise<Space> {
  const { values, errors } = parseFields(CreateSpaceShape, input);
  throwIfErrors(errors);
  try {
    return await withTransaction(ctx, async (tx) => {
      const now = tx.now();
      const [row] = await tx.db
        .insert(spaces)
        .values({ workspaceId: tx.actor.workspaceId, name: values.name as string, color: values.color ?? 1, createdAt: now, updatedAt: now })
        .returning(spaceColumns);
      if (!row) throw new Error("insert returned no row");
      await recordAudit(tx, { action: "space.created", objectType: "space", objectId: row.id, after: spaceAuditView(row) });
      return row;
    });
  } catch (error) {
    rethrowNameTaken(error);
  }
}

export async function updateSpace({ ctx, id, input }: { ctx: Ctx; id: number; input: UpdateSpaceInput }): Promise<Space> {
  const existing = await getSpace({ ctx, id });
  const { values, errors } = parseFields(UpdateSpaceShape, input);
  throwIfErrors(errors);
  try {
    return await withTransaction(ctx, async (tx) => {
      const [row] = await tx.db
        .update(spaces)
        .set({ ...(values.name !== undefined ? { name: values.name } : {}), ...(values.color !== undefined ? { color: values.color } : {}), updatedAt: tx.now() })
        .where(and(eq(spaces.id, id), eq(spaces.workspaceId, tx.actor.workspaceId)))
        .returning(spaceColumns);
      if (!row) throw new NotFoundError("Space");
      await recordAudit(tx, { action: "space.updated", objectType: "space", objectId: id, before: spaceAuditView(existing), after: spaceAuditView(row) });
      return row;
    });
  } catch (error) {
    rethrowNameTaken(error);
  }
}

/** Deletes the caller's space; its links stay, without a space (the foreign key sets null). */
export async function deleteSpace({ ctx, id }: { ctx: Ctx; id: number }): Promise<{ id: number }> {
  return withTransaction(ctx, async (tx) => {
    const [row] = await tx.db
      .delete(spaces)
      .where(and(eq(spaces.id, id), eq(spaces.workspaceId, tx.actor.workspaceId)))
      .returning(spaceColumns);
    if (!row) throw new NotFoundError("Space");
    await recordAudit(tx, { action: "space.deleted", objectType: "space", objectId: row.id, before: spaceAuditView(row) });
    return { id: row.id };
  });
}
