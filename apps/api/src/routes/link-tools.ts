import { Readable } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { EXPORT_COLUMNS, ExportLinksInput, getLink, parseInput, QrOptionsInput, streamLinkExport, type QrCache, type QrImage } from "@shortener/core";
import type { ApiDeps } from "../deps.ts";
import { ctxOf } from "../http/auth.ts";
import { csvLine } from "../http/csv.ts";
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

/** CONTRACT §17: QR codes, exports and bulk changes of the caller's links. */
export function linkToolRoutes(app: FastifyInstance, deps: ApiDeps, json: Serializers, qr: QrCache): void {
  resource(app, "/links/:id/qr", {
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
   * 422 before anything is sent; a client that goes away stops the reads.
   */
  resource(app, "/links/export", {
    GET: async (request, reply) => {
      const pages = await streamLinkExport({ ctx: ctxOf(deps, request), input: formInput(ExportLinksInput, sentQuery(request)) });
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
        .headers({
          "content-type": "text/csv; charset=utf-8",
          "content-disposition": `attachment; filename="links-${day}.csv"`,
          "cache-control": "private, no-store",
          "x-content-type-options": "nosniff",
        })
        .send(body);
    },
  });
}
