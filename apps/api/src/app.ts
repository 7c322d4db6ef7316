import Fastify, { LogController, type FastifyInstance } from "fastify";
import { sql } from "@shortener/db";
import type { ApiDeps } from "./deps.ts";
import { NOT_FOUND_MESSAGE, toErrorResponse } from "./errors.ts";
import { authenticate } from "./http/auth.ts";
import { decodeForm, normalizeBody } from "./http/form.ts";
import { accountRoutes } from "./routes/account.ts";
import { importRoutes } from "./routes/imports.ts";
import { resourceRoutes } from "./routes/resources.ts";
import { createSerializers } from "./serialize/resources.ts";

/** Paths the API answers; the launcher sends every other path to the visitor side. */
export function isApiPath(url: string): boolean {
  return /^\/(api\/|api$|trpc\/|trpc$|stats\/|healthz(\?|$)|readyz(\?|$))/.test(url);
}

/** The REST (and, with it, tRPC) API as a Fastify instance that is not listening yet. */
export async function createApi(deps: ApiDeps): Promise<FastifyInstance> {
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: false }),
    bodyLimit: deps.config.bodyLimit,
    trustProxy: deps.config.trustProxy,
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  });

  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_request, body, done) => {
    try {
      done(null, decodeForm(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    try {
      const text = (body as string).trim();
      done(null, text === "" ? {} : normalizeBody(JSON.parse(text)));
    } catch {
      done(Object.assign(new Error("invalid json"), { statusCode: 400, code: "FST_ERR_CTP_INVALID_JSON_BODY" }), undefined);
    }
  });

  app.setErrorHandler((error, request, reply) => {
    const { status, body, headers, isUnexpected } = toErrorResponse(error);
    if (isUnexpected) request.log.error({ err: error, url: request.url, method: request.method }, "unexpected error");
    return reply.code(status).headers(headers).send(body);
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ message: NOT_FOUND_MESSAGE, code: "not_found", status: 404 }));

  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    try {
      await deps.database.db.execute(sql`select 1`);
      return { status: "ok" };
    } catch (error) {
      _request.log.warn({ err: error }, "database not reachable");
      return reply.code(503).send({ status: "unavailable" });
    }
  });

  await app.register(
    async (api) => {
      api.addHook("onRequest", authenticate(deps));
      accountRoutes(api, deps);
      resourceRoutes(api, deps, createSerializers(deps.config));
      await api.register(async (imports) => importRoutes(imports, deps));
    },
    { prefix: "/api/v1" },
  );

  return app;
}
