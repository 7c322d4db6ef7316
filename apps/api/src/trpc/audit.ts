import { listAudit, ListAuditInput } from "@shortener/core";
import { auditEntryJson } from "../serialize/audit.ts";
import { router, scoped } from "./init.ts";
import { toListJson } from "./lists.ts";

/** CONTRACT §24 on tRPC: the workspace's audit log, as REST's `GET /audit` lists it; admins and owners only (FORBIDDEN otherwise). */
export const auditRouter = router({
  list: scoped("account", "admin")
    .input(ListAuditInput)
    .query(async ({ ctx, input }) => toListJson(await listAudit({ ctx: ctx.core, input }), auditEntryJson)),
});
