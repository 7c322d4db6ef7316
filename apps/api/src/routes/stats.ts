import type { FastifyInstance } from "fastify";
import { getStats, GetStatsInput, type StatRow } from "@shortener/core";
import type { ApiDeps } from "../deps.ts";
import { ctxOf } from "../http/auth.ts";
import { sendList } from "../http/envelope.ts";
import { formInput } from "../http/form.ts";
import { idParam, resource } from "../http/routes.ts";

/**
 * CONTRACT §8: `GET /api/v1/stats/{link_id}?name=…&from=…&to=…`, the caller's links only. A list
 * envelope of `{value, count}`; the whole series is one page unless `per_page` asks for pages.
 */
export function statsRoutes(app: FastifyInstance, deps: ApiDeps): void {
  resource(app, "/stats/:id", {
    GET: async (request, reply) => {
      const query = (request.query ?? {}) as Record<string, unknown>;
      const page = await getStats({ ctx: ctxOf(deps, request), input: formInput(GetStatsInput, { ...query, link_id: idParam(request.params) }) });
      return sendList(request, reply, page, (row: StatRow) => ({ value: row.value, count: row.count }));
    },
  });
}
