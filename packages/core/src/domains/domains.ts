import { and, eq, isNotNull } from "drizzle-orm";
import { domains, isUniqueViolation } from "@shortener/db";
import { domainColumns, domainDetailColumns, type Domain, type DomainDetail } from "./domain-columns.ts";
import { domainAuditView } from "../audit/audit-views.ts";
import { recordAudit } from "../audit/record-audit.ts";
import { withTransaction, type Ctx } from "../context.ts";
import { NotFoundError, ValidationError } from "../errors.ts";
import { listOwnedRows } from "../lists/list-owned-rows.ts";
import type { Page } from "../lists/pagination.ts";
import { parseFields, parseInput, throwIfErrors } from "../validation/fields.ts";
import { CreateDomainShape, ListDomainsInput, UpdateDomainShape, type CreateDomainInput, type ListDomainsInput as ListInput, type UpdateDomainInput } from "./schemas.ts";
import { checkNoLoops } from "./served.ts";
import { notifyChange } from "../changes/changes.ts";
import { checkClaim, DEFAULT_DOMAIN_POLICY, type DomainPolicy } from "./claim.ts";
import { newVerificationToken } from "./verification.ts";

/** The caller's domain, or NOT_FOUND (also for another user's: never a different answer). */
export async function getDomain({ ctx, id }: { ctx: Ctx; id: number }): Promise<DomainDetail> {
  const [row] = await ctx.db
    .select(domainDetailColumns)
    .from(domains)
    .where(and(eq(domains.id, id), eq(domains.workspaceId, ctx.actor.workspaceId)));
  if (!row) throw new NotFoundError("Domain");
  return row;
}

/** The caller's domain of that exact (normalised) name, verified or not, or null. */
export async function findDomainByName({ ctx, name }: { ctx: Ctx; name: string }): Promise<Domain | null> {
  const [row] = await ctx.db
    .select(domainColumns)
    .from(domains)
    .where(and(eq(domains.name, name), eq(domains.workspaceId, ctx.actor.workspaceId)));
  return row ?? null;
}

export async function listDomains({ ctx, input }: { ctx: Ctx; input: ListInput | undefined }): Promise<Page<DomainDetail>> {
  const params = parseInput(ListDomainsInput, input ?? {});
  return listOwnedRows<DomainDetail>({
    db: ctx.db,
    table: domains,
    select: domainDetailColumns,
    workspaceId: ctx.actor.workspaceId,
    workspaceColumn: domains.workspaceId,
    idColumn: domains.id,
    search: { column: domains.name, term: params.search },
    sortColumn: params.sort_by === "name" ? domains.name : domains.id,
    sort: params.sort,
    page: params.page,
    perPage: params.per_page,
  });
}

const TAKEN = "The name has already been taken.";

/**
 * Creates a domain for the caller (CONTRACT §4, §14). An admin's domain, or any domain when
 * verification is off, is verified at once; another user's starts unverified with a token for its TXT
 * record. A name is taken when a verified domain has it, or the caller has it already; an unverified
 * claim of another user takes nothing (docs/adr/0017-domain-verification.md).
 */
export async function createDomain({ ctx, input, policy = DEFAULT_DOMAIN_POLICY }: { ctx: Ctx; input: CreateDomainInput; policy?: DomainPolicy }): Promise<DomainDetail> {
  const { values, errors } = parseFields(CreateDomainShape, input);
  const pages = (["index_page", "not_found_page"] as const).flatMap((field) => (values[field] ? [{ field, url: values[field] }] : []));
  await Promise.all([
    checkNoLoops(ctx.db, pages, errors, { workspaceId: ctx.actor.workspaceId, extraNames: values.name ? [values.name] : [] }),
    values.name ? checkClaim(ctx.db, ctx.actor, values.name, policy, errors) : undefined,
  ]);
  throwIfErrors(errors);
  const name = values.name as string;
  const isVerified = ctx.actor.role === "admin" || policy.verification === "off";
  try {
    return await withTransaction(ctx, async (tx) => {
      const now = tx.now();
      if (!isVerified) {
        const [served] = await tx.db
          .select({ id: domains.id })
          .from(domains)
          .where(and(eq(domains.name, name), isNotNull(domains.verifiedAt)))
          .limit(1);
        if (served) throw ValidationError.field("name", TAKEN);
      }
      const [row] = await tx.db
        .insert(domains)
        .values({
          workspaceId: tx.actor.workspaceId,
          name,
          indexPage: values.index_page ?? null,
          notFoundPage: values.not_found_page ?? null,
          appleAppSiteAssociation: values.apple_app_site_association ?? null,
          assetLinks: values.asset_links ?? null,
          verifiedAt: isVerified ? now : null,
          verificationToken: isVerified ? null : newVerificationToken(),
          createdAt: now,
          updatedAt: now,
        })
        .returning(domainDetailColumns);
      if (!row) throw new Error("insert returned no row");
      await notifyChange(tx.db, { kind: "domain", name: row.name });
      await recordAudit(tx, { action: "domain.created", objectType: "domain", objectId: row.id, after: domainAuditView(row) });
      return row;
    });
  } catch (error) {
    if (isUniqueViolation(error, "domains_name_key") || isUniqueViolation(error, "domains_workspace_id_name_key")) throw ValidationError.field("name", TAKEN);
    throw error;
  }
}

export async function updateDomain({ ctx, id, input }: { ctx: Ctx; id: number; input: UpdateDomainInput }): Promise<DomainDetail> {
  const existing = await getDomain({ ctx, id });
  const { values, errors } = parseFields(UpdateDomainShape, input);
  const pages = (["index_page", "not_found_page"] as const).flatMap((field) => (values[field] ? [{ field, url: values[field] }] : []));
  await checkNoLoops(ctx.db, pages, errors, { workspaceId: ctx.actor.workspaceId });
  throwIfErrors(errors);
  return withTransaction(ctx, async (tx) => {
    const [row] = await tx.db
      .update(domains)
      .set({
        ...(values.index_page !== undefined ? { indexPage: values.index_page } : {}),
        ...(values.not_found_page !== undefined ? { notFoundPage: values.not_found_page } : {}),
        ...(values.apple_app_site_association !== undefined ? { appleAppSiteAssociation: values.apple_app_site_association } : {}),
        ...(values.asset_links !== undefined ? { assetLinks: values.asset_links } : {}),
        updatedAt: tx.now(),
      })
      .where(and(eq(domains.id, existing.id), eq(domains.workspaceId, tx.actor.workspaceId)))
      .returning(domainDetailColumns);
    if (!row) throw new NotFoundError("Domain");
    await notifyChange(tx.db, { kind: "domain", name: row.name });
    await recordAudit(tx, { action: "domain.updated", objectType: "domain", objectId: row.id, before: domainAuditView(existing), after: domainAuditView(row) });
    return row;
  });
}

/**
 * Deletes the caller's domain and, through the foreign key, all its links. One audit entry, the
 * domain's: its links go with it without one each (docs/audit.md).
 */
export async function deleteDomain({ ctx, id }: { ctx: Ctx; id: number }): Promise<{ id: number }> {
  return withTransaction(ctx, async (tx) => {
    const [row] = await tx.db
      .delete(domains)
      .where(and(eq(domains.id, id), eq(domains.workspaceId, tx.actor.workspaceId)))
      .returning(domainDetailColumns);
    if (!row) throw new NotFoundError("Domain");
    await notifyChange(tx.db, { kind: "domain", name: row.name });
    await recordAudit(tx, { action: "domain.deleted", objectType: "domain", objectId: row.id, before: domainAuditView(row) });
    return { id: row.id };
  });
}
