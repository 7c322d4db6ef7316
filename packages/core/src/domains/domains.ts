import { and, eq } from "drizzle-orm";
import { domains, isUniqueViolation } from "@shortener/db";
import { withTransaction, type Ctx } from "../context.ts";
import { NotFoundError, ValidationError } from "../errors.ts";
import { listOwnedRows } from "../shared/list.ts";
import type { Page } from "../shared/pagination.ts";
import { parseFields, parseInput, throwIfErrors } from "../shared/validation.ts";
import { CreateDomainShape, ListDomainsInput, UpdateDomainShape, type CreateDomainInput, type ListDomainsInput as ListInput, type UpdateDomainInput } from "./schemas.ts";
import { checkNoLoops } from "./served.ts";
import { notifyChange } from "../shared/changes.ts";

export type Domain = { id: number; name: string; indexPage: string | null; notFoundPage: string | null; createdAt: Date; updatedAt: Date };

export const domainColumns = {
  id: domains.id,
  name: domains.name,
  indexPage: domains.indexPage,
  notFoundPage: domains.notFoundPage,
  createdAt: domains.createdAt,
  updatedAt: domains.updatedAt,
};

/** The caller's domain, or NOT_FOUND (also for another user's: never a different answer). */
export async function getDomain({ ctx, id }: { ctx: Ctx; id: number }): Promise<Domain> {
  const [row] = await ctx.db.select(domainColumns).from(domains).where(and(eq(domains.id, id), eq(domains.userId, ctx.actor.userId)));
  if (!row) throw new NotFoundError("Domain");
  return row;
}

export async function listDomains({ ctx, input }: { ctx: Ctx; input: ListInput | undefined }): Promise<Page<Domain>> {
  const params = parseInput(ListDomainsInput, input ?? {});
  return listOwnedRows<Domain>({
    db: ctx.db,
    table: domains,
    select: domainColumns,
    userId: ctx.actor.userId,
    userColumn: domains.userId,
    idColumn: domains.id,
    search: { column: domains.name, term: params.search },
    sortColumn: params.sort_by === "name" ? domains.name : domains.id,
    sort: params.sort,
    page: params.page,
    perPage: params.per_page,
  });
}

export async function createDomain({ ctx, input }: { ctx: Ctx; input: CreateDomainInput }): Promise<Domain> {
  const { values, errors } = parseFields(CreateDomainShape, input);
  const pages = (["index_page", "not_found_page"] as const).flatMap((field) => (values[field] ? [{ field, url: values[field] }] : []));
  await checkNoLoops(ctx.db, pages, errors, values.name ? [values.name] : []);
  throwIfErrors(errors);
  const name = values.name as string;
  try {
    return await withTransaction(ctx, async (tx) => {
      const now = tx.now();
      const [row] = await tx.db
        .insert(domains)
        .values({ userId: tx.actor.userId, name, indexPage: values.index_page ?? null, notFoundPage: values.not_found_page ?? null, createdAt: now, updatedAt: now })
        .returning(domainColumns);
      if (!row) throw new Error("insert returned no row");
      await notifyChange(tx.db, { kind: "domain", name: row.name });
      return row;
    });
  } catch (error) {
    if (isUniqueViolation(error, "domains_name_key")) throw ValidationError.field("name", "The name has already been taken.");
    throw error;
  }
}

export async function updateDomain({ ctx, id, input }: { ctx: Ctx; id: number; input: UpdateDomainInput }): Promise<Domain> {
  const existing = await getDomain({ ctx, id });
  const { values, errors } = parseFields(UpdateDomainShape, input);
  const pages = (["index_page", "not_found_page"] as const).flatMap((field) => (values[field] ? [{ field, url: values[field] }] : []));
  await checkNoLoops(ctx.db, pages, errors);
  throwIfErrors(errors);
  return withTransaction(ctx, async (tx) => {
    const [row] = await tx.db
      .update(domains)
      .set({
        ...(values.index_page !== undefined ? { indexPage: values.index_page } : {}),
        ...(values.not_found_page !== undefined ? { notFoundPage: values.not_found_page } : {}),
        updatedAt: tx.now(),
      })
      .where(and(eq(domains.id, existing.id), eq(domains.userId, tx.actor.userId)))
      .returning(domainColumns);
    if (!row) throw new NotFoundError("Domain");
    await notifyChange(tx.db, { kind: "domain", name: row.name });
    return row;
  });
}

/** Deletes the caller's domain and, through the foreign key, all its links. */
export async function deleteDomain({ ctx, id }: { ctx: Ctx; id: number }): Promise<{ id: number }> {
  return withTransaction(ctx, async (tx) => {
    const [row] = await tx.db
      .delete(domains)
      .where(and(eq(domains.id, id), eq(domains.userId, tx.actor.userId)))
      .returning({ id: domains.id, name: domains.name });
    if (!row) throw new NotFoundError("Domain");
    await notifyChange(tx.db, { kind: "domain", name: row.name });
    return { id: row.id };
  });
}
