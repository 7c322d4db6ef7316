import type { Ctx } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { findOwnedImport, findRowErrors, JOB_ERRORS_SHOWN, type ImportJob, type RowError } from "./import-job.ts";

/** One of the caller's import jobs with its first 1,000 row errors in file order; another user's is NOT_FOUND. */
export async function getImport({ ctx, id }: { ctx: Ctx; id: number }): Promise<ImportJob & { errors: RowError[] }> {
  const job = await findOwnedImport(ctx.db, ctx.actor.workspaceId, id);
  if (!job) throw new NotFoundError("Import");
  const errors = await findRowErrors(ctx.db, id, JOB_ERRORS_SHOWN);
  return { ...job, errors: errors.map(({ line, field, message }) => ({ line, field, message })) };
}

/**
 * Every row error of one of the caller's jobs, in file order, a page at a time (bounded memory
 * whatever their number). Checks ownership before the first page: NOT_FOUND for another user's job.
 */
export async function streamImportErrors({ ctx, id, pageSize = 5000 }: { ctx: Ctx; id: number; pageSize?: number }): Promise<AsyncGenerator<RowError[]>> {
  const job = await findOwnedImport(ctx.db, ctx.actor.workspaceId, id);
  if (!job) throw new NotFoundError("Import");
  return (async function* () {
    let after: { line: number; id: number } | undefined;
    for (;;) {
      const page = await findRowErrors(ctx.db, id, pageSize, after);
      if (!page.length) return;
      yield page.map(({ line, field, message, alias }) => ({ line, field, message, ...(alias ? { alias } : {}) }));
      const last = page[page.length - 1];
      if (!last || page.length < pageSize) return;
      after = { line: last.line, id: last.id };
    }
  })();
}
