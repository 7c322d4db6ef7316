import { and, eq } from "drizzle-orm";
import { domains, importJobs } from "@shortener/db";
import type { Ctx } from "../context.ts";
import { addError, parseFields, throwIfErrors } from "../shared/validation.ts";
import { importJobColumns, type ImportJob } from "./import-job.ts";
import { CreateImportShape, type CreateImportInput } from "./schemas.ts";

/**
 * Queues an import job (CONTRACT §12). With an idempotency key the caller has used before, nothing is
 * created: the earlier job comes back with `isNew: false`. The rows themselves are read by a worker (or
 * the operator CLI) and written by `runImport`. Text that Postgres cannot store (NUL) becomes U+FFFD,
 * which the row check then reports, like any byte that was not UTF-8.
 */
export async function createImport({ ctx, input }: { ctx: Ctx; input: CreateImportInput }): Promise<{ job: ImportJob; isNew: boolean }> {
  const { values: v, errors } = parseFields(CreateImportShape, input);
  const userId = ctx.actor.userId;
  if (v.idempotency_key !== undefined) {
    const earlier = await findByKey(ctx, v.idempotency_key);
    if (earlier) return { job: earlier, isNew: false };
  }
  if (v.domain_id !== undefined) {
    const [owned] = await ctx.db.select({ id: domains.id }).from(domains).where(and(eq(domains.id, v.domain_id), eq(domains.userId, userId)));
    if (!owned) addError(errors, "domain_id", "The selected domain id is invalid.");
  }
  throwIfErrors(errors);

  const now = ctx.now();
  const [row] = await ctx.db
    .insert(importJobs)
    .values({
      userId,
      status: "queued",
      idempotencyKey: v.idempotency_key ?? null,
      defaultDomainId: v.domain_id ?? null,
      source: v.source === undefined ? null : v.source.replaceAll("\u0000", "\ufffd"),
      totalRows: v.total_rows ?? 0,
      createdAt: now,
    })
    .onConflictDoNothing({ target: [importJobs.userId, importJobs.idempotencyKey] })
    .returning(importJobColumns);
  if (row) return { job: row, isNew: true };
  // Two requests with one key at once: the other one inserted first.
  const earlier = v.idempotency_key !== undefined ? await findByKey(ctx, v.idempotency_key) : undefined;
  if (!earlier) throw new Error("import job insert returned no row");
  return { job: earlier, isNew: false };
}

async function findByKey(ctx: Ctx, key: string): Promise<ImportJob | undefined> {
  const [row] = await ctx.db
    .select(importJobColumns)
    .from(importJobs)
    .where(and(eq(importJobs.userId, ctx.actor.userId), eq(importJobs.idempotencyKey, key)));
  return row;
}
