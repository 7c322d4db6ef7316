import { Readable } from "node:stream";
import { csvLine } from "@shortener/csv";
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from "fastify";
import {
  BulkDeleteLinksInput,
  BulkUpdateLinksInput,
  bulkDeleteLinks,
  bulkUpdateLinks,
  EXPORT_COLUMNS,
  ExportLinksInput,
  getLink,
  listTags,
  parseInput,
  QrOptionsInput,
  streamLinkExport,
  type QrCache,
  type QrImage,
} from "@shortener/core";
import type { ApiDeps } from "../deps.ts";
import { assertExportIncludeAllowed, ctxOf, EXPORT_SECRETS_HEADER } from "../http/auth.ts";
import { privateCsvHeaders } from "../http/csv.ts";
import { sendList } from "../http/envelope.ts";
import { formInput } from "../http/form.ts";
import { idParam, resource } from "../http/routes.ts";
import type { Serializers } from "../serialize/resources.ts";

/** A query string's values with the empty ones dropped, as the option schemas read "not sent". */
export function sentQuery(request: FastifyRequest): Record<string, unknown> {
  const query = (request.query ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(query).filter(([, value]) => value !== "" && value !== undefined));
}

/** Sends a drawn QR code, or a 304 when the client holds this very image. */
export function sendQrImage(request: FastifyRequest, reply: FastifyReply, image: QrImage) {
  reply.headers({
    "content-type": image.format === "svg" ? "image/svg+xml; charset=utf-8" : image.contentType,
    "cache-control": "private, no-cache",
    etag: image.etag,
    "x-content-type-options": "nosniff",
  });
  if (request.headers["if-none-match"] === image.etag) return reply.code(304).send();
  return reply.code(200).send(image.body);
}

/**
 * The ids of a bulk request's query string: `ids=1,2,3`, `ids=1&ids=2` or `ids[]=1&ids[]=2` (the query
 * parser keeps brackets in the key); undefined when none are sent.
 */
function queryIds(request: FastifyRequest): unknown {
  const query = (request.query ?? {}) as Record<string, unknown>;
  return query.ids ?? query["ids[]"];
}

/**
 * CONTRACT §17 bulk changes, on the `/links` collection beside its list and create: `DELETE
 * /links?ids=1,2,3` and `PATCH /links` with `ids` and update fields (`ids` may also come in the query).
 * All or nothing, in one transaction (core's `bulkDeleteLinks`, `bulkUpdateLinks`).
 */
export function bulkLinkHandlers(deps: ApiDeps, json: Serializers): { PATCH: RouteHandlerMethod; DELETE: RouteHandlerMethod } {
  return {
    PATCH: async (request, reply) => {
      const body = request.body && typeof request.body === "object" ? (request.body as Record<string, unknown>) : {};
      const ids = body.ids ?? queryIds(request);
      const updated = await bulkUpdateLinks({ ctx: ctxOf(deps, request), input: formInput(BulkUpdateLinksInput, { ...body, ids }) });
      return sendList(request, reply, { data: updated, total: updated.length, page: 1, perPage: Math.max(1, updated.length) }, json.forScopes(request.auth?.scopes ?? []).link);
    },
    DELETE: async (request, reply) => {
      const deleted = await bulkDeleteLinks({ ctx: ctxOf(deps, request), input: formInput(BulkDeleteLinksInput, { ids: queryIds(request) }) });
      return reply.code(200).send({ data: deleted.map(({ id }) => ({ id, object: "link", deleted: true })), status: 200 });
    },
  };
}

/** CONTRACT §17: QR codes, exports and bulk changes of the caller's links. */
export function linkToolRoutes(app: FastifyInstance, deps: ApiDeps, json: Serializers, qr: QrCache): void {
  /** CONTRACT §25: the workspace's tags with how many links carry each, most used first, as one page. */
  resource(app, "/tags", "links:read", "viewer", {
    GET: async (request, reply) => {
      const tags = await listTags({ ctx: ctxOf(deps, request) });
      return sendList(request, reply, { data: tags, total: tags.length, page: 1, perPage: Math.max(1, tags.length) }, (t) => ({ name: t.name, count: t.count }));
    },
  });

  resource(app, "/links/:id/qr", "links:read", "viewer", {
    GET: async (request, reply) => {
      const ctx = ctxOf(deps, request);
      const link = await getLink({ ctx, id: idParam(request.params) });
      const options = parseInput(QrOptionsInput, formInput(QrOptionsInput, sentQuery(request)));
      return sendQrImage(request, reply, qr.get(json.shortUrl(link.domain.name, link.alias), options));
    },
  });

  /**
   * The caller's links as CSV with the import's columns (docs/adr/0026-link-exports.md), streamed: one
   * page of rows is read from the database when the socket has taken the previous one (Readable.from
   * pulls the generator only as the reply drains), so memory stays flat at any size. Bad filters are a
   * 422 before anything is sent; a client that goes away stops the reads. Cells that a spreadsheet would
   * run as formulas are neutralised (`csvLine`); the importer undoes it for a file with this header.
   * The password hashes only with `include=secrets`, for a key with `links:write` (403 otherwise); the
   * `Shortener-Export-Secrets` header says whether they are in (`included`) or not (`withheld`).
   */
  resource(app, "/links/export", "links:read", "editor", {
    GET: async (request, reply) => {
      const query = sentQuery(request);
      const ctx = ctxOf(deps, request);
      assertExportIncludeAllowed(request.auth?.scopes ?? [], query.include);
      const input = formInput(ExportLinksInput, query);
      const pages = await streamLinkExport({ ctx, input });
      const body = Readable.from(
        (async function* () {
          yield csvLine(EXPORT_COLUMNS);
          for await (const rows of pages) {
            let chunk = "";
            for (const row of rows) chunk += csvLine(EXPORT_COLUMNS.map((column) => row[column]));
            yield chunk;
          }
        })(),
        { objectMode: false },
      );
      const day = deps.now().toISOString().slice(0, 10);
      return reply
        .code(200)
        .headers({ ...privateCsvHeaders(`links-${day}.csv`), [EXPORT_SECRETS_HEADER]: query.include === "secrets" ? "included" : "withheld" })
        .send(body);
    },
  });
}
