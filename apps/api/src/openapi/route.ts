import type { FastifyInstance } from "fastify";
import { resource } from "../http/routes.ts";
import { DOCS_PAGE, DOCS_PAGE_CSP, readRedocBundle } from "./docs-page.ts";
import { getOpenApiDocument, type ScopeOf } from "./document.ts";

/**
 * `GET /api/v1/openapi.json` (no key: the document is public, CONTRACT §16) and `GET /api/docs`, a
 * readable reference rendered from it by Redoc's standalone bundle, served from the package itself.
 * `scopeOf` gives each operation the scope its route declares.
 */
export function openApiRoutes(app: FastifyInstance, scopeOf: ScopeOf): void {
  resource(app, "/api/v1/openapi.json", "public", {
    GET: async (_request, reply) => reply.code(200).header("cache-control", "no-cache").send(getOpenApiDocument(scopeOf)),
  });
  resource(app, "/api/docs", "public", {
    GET: async (_request, reply) =>
      reply
        .code(200)
        .headers({
          "content-type": "text/html; charset=utf-8",
          "content-security-policy": DOCS_PAGE_CSP,
          "x-content-type-options": "nosniff",
          "referrer-policy": "no-referrer",
          "cache-control": "no-cache",
        })
        .send(DOCS_PAGE),
  });
  resource(app, "/api/docs/redoc.standalone.js", "public", {
    GET: async (_request, reply) => {
      const bundle = await readRedocBundle();
      return reply
        .code(200)
        .headers({ "content-type": "text/javascript; charset=utf-8", "x-content-type-options": "nosniff", "cache-control": "public, max-age=86400", etag: bundle.etag })
        .send(bundle.body);
    },
  });
}
