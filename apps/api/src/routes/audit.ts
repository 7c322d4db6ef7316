import { Readable } from "node:stream";
import { csvLine } from "@shortener/csv";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { ExportAuditInput, listAudit, ListAuditInput, streamAuditExport } from "@shortener/core";
import type { ApiDeps } from "../deps.ts";
import { ctxOf } from "../http/auth.ts";
import { privateCsvHeaders } from "../http/csv.ts";
import { sendList } from "../http/envelope.ts";
import { formInput } from "../http/form.ts";
import { resource } from "../http/routes.ts";
import { AUDIT_CSV_COLUMNS, auditCsvCells, auditEntryJson } from "../serialize/audit.ts";
import { sentQuery } from "./link-tools.ts";

/** `Accept: text/csv` asks for the CSV export. */
function wantsCsv(request: FastifyRequest): boolean {
  return /(^|,)\s*text\/csv\s*(;|,|$)/i.test(String(request.headers.accept ?? ""));
}

/**
 * `GET /api/v1/audit` (CONTRACT §24, docs/audit.md): the workspace's audit log, newest first, for its
 * admins and owners (core refuses the others: 403). Filters `actor`, `object_type` + `object_id`,
 * `action`, `from`/`to`; pages of the list envelope, or with `Accept: text/csv` every matching entry as
 * CSV, streamed a page of the database at a time as the socket takes it (like the link export). Read
 * only: no route or procedure changes or deletes an entry.
 */
export function auditRoutes(app: FastifyInstance, deps: ApiDeps): void {
  resource(app, "/audit", "account", "admin", {
    GET: async (request, reply) => {
      const ctx = ctxOf(deps, request);
      if (!wantsCsv(request)) return sendList(request, reply, await listAudit({ ctx, input: formInput(ListAuditInput, request.query) }), auditEntryJson);
      // Every matching entry: `page` and `per_page` count for nothing here.
      const pages = await streamAuditExport({ ctx, input: formInput(ExportAuditInput, sentQuery(request)) });
      const body = Readable.from(
        (async function* () {
          yield csvLine(AUDIT_CSV_COLUMNS);
          for await (const entries of pages) {
            let chunk = "";
            for (const entry of entries) chunk += csvLine(auditCsvCells(entry));
            yield chunk;
          }
        })(),
        { objectMode: false },
      );
      const day = deps.now().toISOString().slice(0, 10);
      return reply
        .code(200)
        .headers({ ...privateCsvHeaders(`audit-${day}.csv`), vary: "Accept" })
        .send(body);
    },
  });
}
