import { importJobs } from "@shortener/db";
import type { Ctx } from "../context.ts";
import { listOwnedRows } from "../lists/list-owned-rows.ts";
import type { Page } from "../lists/pagination.ts";
import { parseInput } from "../validation/fields.ts";
import { importJobColumns, type ImportJob } from "./import-job.ts";
import { ListImportsInput } from "./schemas.ts";

/** The caller's import jobs, newest first by default (`sort=asc` for oldest first). */
export async function listImports({ ctx, input }: { ctx: Ctx; input: ListImportsInput | undefined }): Promise<Page<ImportJob>> {
  const params = parseInput(ListImportsInput, input ?? {});
  return listOwnedRows<ImportJob>({
    db: ctx.db,
    table: importJobs,
    select: importJobColumns,
    workspaceId: ctx.actor.workspaceId,
    workspaceColumn: importJobs.workspaceId,
    idColumn: importJobs.id,
    sortColumn: importJobs.id,
    sort: params.sort,
    page: params.page,
    perPage: params.per_page,
  });
}
