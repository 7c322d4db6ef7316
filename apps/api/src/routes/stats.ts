import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { csvCell } from "@shortener/csv";
import {
  AccountStatsInput,
  DomainVisitsInput,
  getAccountStats,
  getDomainVisits,
  getStats,
  getStatsSummary,
  LinkStatsQueryInput,
  parseInput,
  ValidationError,
  type Page,
  type StatRow,
  type StatsRange,
} from "@shortener/core";
import type { ApiDeps } from "../deps.ts";
import { ctxOf } from "../http/auth.ts";
import { privateCsvHeaders } from "../http/csv.ts";
import { sendList, sendOne } from "../http/envelope.ts";
import { formInput } from "../http/form.ts";
import { idParam, resource } from "../http/routes.ts";
import type { Serializers } from "../serialize/resources.ts";
import { domainVisitsSummaryJson, statRowSerializer, summaryJson, type StatRowJson } from "../serialize/stats.ts";

/** CSV with `format=csv`, or with `Accept: text/csv` and no `format`; `format` is json or csv (CONTRACT §17). */
function wantsCsv(request: FastifyRequest, query: Record<string, unknown>): boolean {
  const format = query.format;
  if (format === undefined || format === "") return /(^|,)\s*text\/csv\s*(;|,|$)/i.test(String(request.headers.accept ?? ""));
  if (format === "csv") return true;
  if (format === "json") return false;
  throw ValidationError.field("format", "The format must be one of json, csv.");
}

/** The CSV columns of a series (CONTRACT §17, §21): the daily series carry `unique` and `bots`, hours `bots`, top links `id`. */
function csvColumns(name: string, isDomain: boolean): (keyof StatRowJson)[] {
  if (name === "clicks") return isDomain ? ["value", "count", "bots"] : ["value", "count", "unique", "bots"];
  if (name === "clicks_hour") return ["value", "count", "bots"];
  if (name === "links") return ["value", "id", "count"];
  return ["value", "count"];
}

/** A page of a series as CSV: a header line, then the rows; values that could run as spreadsheet formulas neutralised. */
function sendCsv(reply: FastifyReply, file: string, columns: readonly string[], rows: readonly Record<string, unknown>[]) {
  let csv = `${columns.join(",")}\r\n`;
  for (const row of rows) csv += `${columns.map((c) => (typeof row[c] === "string" ? csvCell(row[c]) : String(row[c] ?? ""))).join(",")}\r\n`;
  return reply
    .code(200)
    .headers({ ...privateCsvHeaders(file), vary: "Accept" })
    .send(csv);
}

function sendSeries(
  request: FastifyRequest,
  reply: FastifyReply,
  isCsv: boolean,
  file: string,
  page: Page<StatRow> & { name: string; range: StatsRange },
  toJson: (row: StatRow) => StatRowJson,
  isDomain = false,
) {
  if (!isCsv) return sendList(request, reply, page, toJson);
  return sendCsv(reply, `${file}-${page.name}-${page.range.from}-${page.range.to}.csv`, csvColumns(page.name, isDomain), page.data.map(toJson));
}

function sendSummary(reply: FastifyReply, isCsv: boolean, file: string, range: StatsRange, data: Record<string, unknown>) {
  if (!isCsv) return sendOne(reply, data);
  return sendCsv(reply, `${file}-summary-${range.from}-${range.to}.csv`, Object.keys(data), [data]);
}

/**
 * CONTRACT §8, §21: `GET /api/v1/stats/{link_id}?name=…&from=…&to=…` (the caller's links only): the
 * summary, or a list envelope of one series; `GET /api/v1/stats?name=…`: every link of the caller at
 * once; `GET /api/v1/domains/{id}/visits?name=…`: a domain's orphan visits. As CSV (§17): the rows'
 * columns, values that could run as spreadsheet formulas (they come from visitors: referrers,
 * languages, aliases) neutralised.
 */
export function statsRoutes(app: FastifyInstance, deps: ApiDeps, json: Serializers): void {
  const toRowJson = statRowSerializer(json.shortUrl);
  resource(app, "/stats/:id", "stats:read", "viewer", {
    GET: async (request, reply) => {
      const query = (request.query ?? {}) as Record<string, unknown>;
      const isCsv = wantsCsv(request, query);
      const id = idParam(request.params);
      const ctx = ctxOf(deps, request);
      const input = parseInput(LinkStatsQueryInput, formInput(LinkStatsQueryInput, { ...query, link_id: id }));
      if (input.name === "summary") {
        const summary = await getStatsSummary({ ctx, input: { link_id: id, from: input.from, to: input.to } });
        return sendSummary(reply, isCsv, `stats-${id}`, summary.range, summaryJson(summary));
      }
      const page = await getStats({ ctx, input: { ...input, name: input.name } });
      return sendSeries(request, reply, isCsv, `stats-${id}`, page, toRowJson);
    },
  });
  resource(app, "/stats", "stats:read", "viewer", {
    GET: async (request, reply) => {
      const query = (request.query ?? {}) as Record<string, unknown>;
      const isCsv = wantsCsv(request, query);
      const result = await getAccountStats({ ctx: ctxOf(deps, request), input: formInput(AccountStatsInput, query) });
      if (result.kind === "summary") return sendSummary(reply, isCsv, "stats-account", result.range, summaryJson(result));
      return sendSeries(request, reply, isCsv, "stats-account", result, toRowJson);
    },
  });
  resource(app, "/domains/:id/visits", "stats:read", "viewer", {
    GET: async (request, reply) => {
      const query = (request.query ?? {}) as Record<string, unknown>;
      const isCsv = wantsCsv(request, query);
      const id = idParam(request.params);
      const result = await getDomainVisits({ ctx: ctxOf(deps, request), input: formInput(DomainVisitsInput, { ...query, id }) });
      if (result.kind === "summary") return sendSummary(reply, isCsv, `domain-${id}-visits`, result.range, domainVisitsSummaryJson(result));
      return sendSeries(request, reply, isCsv, `domain-${id}-visits`, result, toRowJson, true);
    },
  });
}
