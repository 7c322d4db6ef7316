import type { FastifyInstance, FastifyRequest } from "fastify";
import { csvCell } from "@shortener/csv";
import { getStats, GetStatsInput, ValidationError, type StatRow } from "@shortener/core";
import type { ApiDeps } from "../deps.ts";
import { ctxOf } from "../http/auth.ts";
import { privateCsvHeaders } from "../http/csv.ts";
import { sendList } from "../http/envelope.ts";
import { formInput } from "../http/form.ts";
import { idParam, resource } from "../http/routes.ts";

/** CSV with `format=csv`, or with `Accept: text/csv` and no `format`; `format` is json or csv (CONTRACT §17). */
function wantsCsv(request: FastifyRequest, query: Record<string, unknown>): boolean {
  const format = query.format;
  if (format === undefined || format === "") return /(^|,)\s*text\/csv\s*(;|,|$)/i.test(String(request.headers.accept ?? ""));
  if (format === "csv") return true;
  if (format === "json") return false;
  throw ValidationError.field("format", "The format must be one of json, csv.");
}

/**
 * CONTRACT §8: `GET /api/v1/stats/{link_id}?name=…&from=…&to=…`, the caller's links only. A list
 * envelope of `{value, count}`; the whole series is one page unless `per_page` asks for pages. As CSV
 * (§17): `value,count` lines of the same rows, values that could run as spreadsheet formulas (they
 * come from visitors: referrers, languages) neutralised.
 */
export function statsRoutes(app: FastifyInstance, deps: ApiDeps): void {
  resource(app, "/stats/:id", "stats:read", {
    GET: async (request, reply) => {
      const query = (request.query ?? {}) as Record<string, unknown>;
      const isCsv = wantsCsv(request, query);
      const id = idParam(request.params);
      const page = await getStats({ ctx: ctxOf(deps, request), input: formInput(GetStatsInput, { ...query, link_id: id }) });
      if (!isCsv) return sendList(request, reply, page, (row: StatRow) => ({ value: row.value, count: row.count }));
      let csv = "value,count\r\n";
      for (const row of page.data) csv += `${csvCell(row.value)},${row.count}\r\n`;
      return reply
        .code(200)
        .headers({ ...privateCsvHeaders(`stats-${id}-${page.name}-${page.range.from}-${page.range.to}.csv`), vary: "Accept" })
        .send(csv);
    },
  });
}
