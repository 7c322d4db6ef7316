import { getImport, IdInput, listImports, ListImportsInput } from "@shortener/core";
import { importJson } from "../serialize/imports.ts";
import { router, scoped } from "./init.ts";
import { toListJson } from "./lists.ts";

/**
 * CONTRACT §12 on tRPC: the caller's import jobs, as REST answers them. Files are uploaded through REST
 * (`POST /api/v1/imports`, streamed to disk, up to IMPORT_MAX_BYTES); a JSON-RPC body is no carrier for them.
 */
/** There is no imports:read: the scope that uploads a file follows its jobs (docs/adr/0027-scoped-api-keys.md). */
export const importsRouter = router({
  list: scoped("imports:write", "editor")
    .input(ListImportsInput)
    .query(async ({ ctx, input }) => toListJson(await listImports({ ctx: ctx.core, input }), (job) => importJson(job))),
  get: scoped("imports:write", "editor")
    .input(IdInput)
    .query(async ({ ctx, input }) => {
      const job = await getImport({ ctx: ctx.core, id: input.id });
      return importJson(job, job.errors);
    }),
});
