import { randomBytes } from "node:crypto";
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { createQrCache, SERVICE_PATHS, SERVICE_ROUTES } from "@shortener/core";
import { sql } from "@shortener/db";
import { loggableError, openFailedTries } from "@shortener/web-guard";
import type { ApiDeps } from "./deps.ts";
import { createDomainVerbs } from "./domain-policy.ts";
import { HttpError, NOT_FOUND_MESSAGE, toErrorResponse } from "./errors.ts";
import { assertRole, assertScope, createGuard, type RouteRole, type RouteScope } from "./http/auth.ts";
import { createSessionGuard } from "./http/session.ts";
import { createBaseUrls } from "./http/base-url.ts";
import { createKeyCache } from "./http/key-cache.ts";
import { decodeForm } from "./http/form.ts";
import { createServedHosts, DEFAULT_SERVED_HOSTS } from "./http/served-hosts.ts";
import { parseJsonBody } from "./http/json.ts";
import { rejectNul } from "./http/nul.ts";
import { registerRateLimits } from "./http/rate-limit.ts";
import { openApiRoutes } from "./openapi/route.ts";
import { accountRoutes } from "./routes/account.ts";
import { adminRoutes } from "./routes/admin.ts";
import { auditRoutes } from "./routes/audit.ts";
import { dashboardRoutes } from "./routes/dashboard.ts";
import { publicStatsRoutes } from "./routes/public-stats.ts";
import { importRoutes } from "./routes/imports.ts";
import { linkToolRoutes } from "./routes/link-tools.ts";
import { resourceRoutes } from "./routes/resources.ts";
import { sessionRoutes } from "./routes/session.ts";
import { ssoRoutes } from "./routes/sso.ts";
import { statsRoutes } from "./routes/stats.ts";
import { tlsAskRoutes } from "./routes/tls-ask.ts";
import { webhookRoutes } from "./routes/webhooks.ts";
import { workspaceRoutes } from "./routes/workspaces.ts";
import { invitationSignUpRoutes } from "./routes/invitation-sign-up.ts";
import { createMailer } from "./mail/mailer.ts";
import { createSerializers } from "./serialize/resources.ts";
import { statsCsp } from "./stats-page/html.ts";
import { renderMessagePage } from "./stats-page/render-stats-page.ts";
import { registerTrpc } from "./trpc/plugin.ts";
import { appRouter } from "./trpc/router.ts";

/**
 * Fastify's own answers to a path parameter over 200 characters (414) or a malformed path (400) echo
 * the path: answer in the contract's envelope instead, or a small page on /stats, without it.
 */
function answerFrameworkError(error: { code?: string }, request: FastifyRequest, reply: FastifyReply) {
  const isTooLong = error.code === "FST_ERR_MAX_PARAM_LENGTH";
  const status = isTooLong ? 414 : 400;
  const message = isTooLong ? "The request path is too long." : "The request path is not valid.";
  const wantsPage = request.url.startsWith("/stats/") && !/application\/json/i.test(String(request.headers.accept ?? ""));
  if (wantsPage) {
    const nonce = randomBytes(16).toString("base64");
    return reply
      .code(status)
      .headers({ "content-type": "text/html; charset=utf-8", "content-security-policy": statsCsp(nonce), "cache-control": "no-store", "x-content-type-options": "nosniff" })
      .send(renderMessagePage({ nonce, status, title: isTooLong ? "Address too long" : "Bad address", message }));
  }
  return reply.code(status).send({ message, code: isTooLong ? "uri_too_long" : "bad_request", status });
}

/**
 * A route as registered: method, URL pattern (`/api/v1/links/:id`), the scope it declares (CONTRACT §17)
 * and the role (CONTRACT §24); none for routes outside `resource()`, no role for public ones.
 */
export type RegisteredRoute = { method: string; url: string; scope: RouteScope | undefined; role: RouteRole | undefined };

const ROUTES = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/**
 * Every route the app registered that answers as an operation: not the 405s of unsupported methods,
 * nor the HEAD routes Fastify adds to GET ones. The OpenAPI test compares them with the document.
 */
export function registeredRoutes(app: FastifyInstance): RegisteredRoute[] {
  return [...(ROUTES.get(app) ?? [])];
}

/** What a route declares: its scope (CONTRACT §17) and role (CONTRACT §24). */
export type RouteAccess = { scope: RouteScope | undefined; role: RouteRole | undefined };
const SCOPE_OF = new WeakMap<FastifyInstance, (method: string, url: string) => RouteAccess | undefined>();

/** The scope and role a route of `app` declares, by method and URL pattern; one function per app (the OpenAPI document is cached by it). */
export function scopeOfRoutes(app: FastifyInstance): (method: string, url: string) => RouteAccess | undefined {
  let scopeOf = SCOPE_OF.get(app);
  if (!scopeOf) {
    scopeOf = (method, url) => ROUTES.get(app)?.find((route) => route.method === method && route.url === url);
    SCOPE_OF.set(app, scopeOf);
  }
  return scopeOf;
}

/** `/` + one of core's `SERVICE_PATHS`, then `/`, `?` or the end; or one of its `SERVICE_ROUTES`, then `?` or the end. */
const API_PATH = new RegExp(`^(?:/(?:${SERVICE_PATHS.join("|")})(?:[/?]|$)|(?:${SERVICE_ROUTES.join("|")})(?:\\?|$))`);

/** Paths the API answers (core's `SERVICE_PATHS` and `SERVICE_ROUTES`); the launcher sends every other path to the visitor side. */
export function isApiPath(url: string): boolean {
  return API_PATH.test(url);
}

/**
 * The REST and tRPC API as a Fastify instance that is not listening yet. Every request under `/api/v1`
 * and `/trpc` goes through one guard: authentication and the rate limits of CONTRACT §10.
 */
export async function createApi(deps: ApiDeps): Promise<FastifyInstance> {
  const app = Fastify({
    // Errors are logged without query values, hashes or secrets (CONTRACT §15), whatever logger is given.
    ...(deps.logger ? { loggerInstance: deps.logger.child({}, { serializers: { err: loggableError } }) } : { logger: false }),
    bodyLimit: deps.config.bodyLimit,
    trustProxy: deps.config.trustProxy,
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // Fastify's own answers to a path parameter over 200 characters (414) or a malformed path (400)
    // echo the path: answer in our envelope, or a small page on /stats, without it.
    frameworkErrors: (error, request, reply) => answerFrameworkError(error, request as FastifyRequest, reply as unknown as FastifyReply),
  });
  const routes: RegisteredRoute[] = [];
  ROUTES.set(app, routes);
  app.addHook("onRoute", (route) => {
    const config = route.config as { isMethodNotAllowed?: boolean; scope?: RouteScope; role?: RouteRole } | undefined;
    if (config?.isMethodNotAllowed) return;
    for (const method of [route.method].flat()) if (method !== "HEAD") routes.push({ method, url: route.url, scope: config?.scope, role: config?.role });
  });
  // Only form and JSON bodies (and, on /imports, CSV and multipart): text/plain is a 415 (CONTRACT §1, §15).
  app.removeContentTypeParser("text/plain");

  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_request, body, done) => {
    try {
      done(null, decodeForm(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      // Too deep: our own 400. Anything else the parser says (it may quote the body): one fixed sentence.
      done(error instanceof HttpError ? error : Object.assign(new Error("invalid json"), { statusCode: 400, code: "FST_ERR_CTP_INVALID_JSON_BODY" }), undefined);
    }
  });

  app.setErrorHandler((error, request, reply) => {
    const { status, body, headers, isUnexpected } = toErrorResponse(error);
    // The path only: a query string may carry what a user typed.
    if (isUnexpected) request.log.error({ err: error, path: request.url.split("?")[0], method: request.method }, "unexpected error");
    else if (status === 503) request.log.warn({ method: request.method, reason: (error as Error).message }, "database unreachable");
    return reply.code(status).headers(headers).send(body);
  });
  const notFound = (_request: unknown, reply: FastifyReply) => reply.code(404).send({ message: NOT_FOUND_MESSAGE, code: "not_found", status: 404 });
  app.setNotFoundHandler(notFound);

  const onRequestDone = deps.onRequestDone;
  if (onRequestDone) {
    app.addHook("onResponse", async (request, reply) => {
      onRequestDone({
        method: request.method,
        route: request.routeOptions.url ?? "unmatched",
        status: reply.statusCode,
        durationMs: reply.elapsedTime,
        keyId: request.auth?.keyId ?? null,
      });
    });
  }
  // Read-your-writes (CONTRACT §26): a request that may have written marks its caller before the answer
  // goes out, so the caller's next reads, in this process or another, see the write.
  const reads = deps.reads;
  if (reads) {
    app.addHook("onSend", async (request) => {
      const method = request.method;
      if (method !== "GET" && method !== "HEAD" && method !== "OPTIONS" && request.auth) await reads.wrote(request.auth.userId);
    });
  }
  // OPTIONS (a CORS preflight, or a client asking what is allowed): answered before any guard, so it
  // never counts as a failed login. No CORS headers: the API is not meant for other sites' scripts.
  app.addHook("onRequest", async (request, reply) => {
    if (request.method === "OPTIONS") return reply.code(204).header("allow", "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS").send();
  });

  // Made once: /healthz is the baseline of bench:api, and the version does not change while the process runs.
  const alive = JSON.stringify({ status: "ok", version: deps.config.version });
  app.get("/healthz", (_request, reply) => reply.type("application/json; charset=utf-8").send(alive));
  app.get("/readyz", async (_request, reply) => {
    try {
      await deps.database.db.execute(sql`select 1`);
      return { status: "ok" };
    } catch (error) {
      _request.log.warn({ err: error }, "database not reachable");
      return reply.code(503).send({ status: "unavailable" });
    }
  });

  const keys = createKeyCache(deps.database, deps.now);
  await keys.start();
  app.addHook("onClose", async () => keys.stop());
  // The hosts a TLS proxy may get certificates for (`/tls/ask`): the service's own, and verified domains.
  const servedHosts = createServedHosts(deps.database, deps.now, [new URL(deps.config.publicUrl).hostname], {
    ...DEFAULT_SERVED_HOSTS,
    lookupsPerSecond: deps.config.tlsAskLookupsPerSecond,
  });
  await servedHosts.start();
  app.addHook("onClose", async () => servedHosts.stop());
  const failedTries =
    deps.failedTries ??
    (await openFailedTries({
      database: deps.database,
      redisUrl: deps.config.redisUrl,
      redisPrefix: `${deps.config.redisKeyPrefix}failed-tries:`,
      now: () => deps.now().getTime(),
      log: app.log,
      keySecret: deps.config.secret,
    }));
  if (!deps.failedTries) app.addHook("onClose", async () => failedTries.close());
  const limiter = await registerRateLimits(app, deps.config);
  const guard = createGuard(limiter, keys, failedTries);
  const sessionGuard = createSessionGuard(deps, limiter);

  const serializers = createSerializers(deps.config);
  const qr = createQrCache();
  // Workspace invitations are mailed through SMTP_URL when it is set (CONTRACT §24).
  const mailer = createMailer(deps.config, app.log);
  app.addHook("onClose", async () => mailer.close());
  const domainVerbs = createDomainVerbs(deps.config);
  const baseUrlOf = createBaseUrls({ db: deps.database.db, now: deps.now }, deps.config.publicUrl);
  app.decorateRequest("baseUrl", "");
  await app.register(
    async (api) => {
      // The key, its limits, then the scope and the role the route declares (CONTRACT §17, §24): a 403 before the body is read.
      // The routes that allow it (the CSV upload and its errors file) also take the dashboard's session
      // cookie when no Authorization header is sent, and its CSRF header on a POST: a 403 before the body
      // is read too (docs/adr/0028-dashboard.md). Everywhere else a cookie counts for nothing here.
      api.addHook("onRequest", async (request, reply) => {
        const { isSessionAllowed, scope, role } = request.routeOptions.config;
        const viaSession = isSessionAllowed && request.headers.authorization === undefined ? await sessionGuard(request, reply) : null;
        const auth = viaSession?.auth ?? (await guard(request, reply));
        if (scope && scope !== "public") assertScope(auth, scope);
        if (role) assertRole(auth, role);
      });
      // A NUL in any field or query parameter: 422 naming it (CONTRACT §15). Bodies that are streams
      // (CSV uploads) are the importer's to read.
      api.addHook("preValidation", async (request) => {
        rejectNul([
          ["", request.query],
          ["", request.body],
        ]);
        // Lists carry absolute URLs: GET, and the links' bulk PATCH (a list envelope, CONTRACT §17).
        if (request.method === "GET" || request.method === "PATCH") request.baseUrl = await baseUrlOf(request);
      });
      // Unknown paths under /api/v1 too: authenticated and counted, then 404.
      api.setNotFoundHandler(notFound);
      accountRoutes(api, deps);
      adminRoutes(api, deps);
      resourceRoutes(api, deps, serializers, domainVerbs);
      linkToolRoutes(api, deps, serializers, qr);
      statsRoutes(api, deps, serializers);
      webhookRoutes(api, deps);
      auditRoutes(api, deps);
      workspaceRoutes(api, deps, mailer);
      await api.register(async (imports) => importRoutes(imports, deps));
    },
    { prefix: "/api/v1" },
  );

  // Public: the OpenAPI document and its reference page, without a key (CONTRACT §16).
  openApiRoutes(app, scopeOfRoutes(app));

  await registerTrpc(app, { deps, guard, sessionGuard, failedTries, router: appRouter, prefix: "/trpc", qr, mailer });
  // The dashboard (CONTRACT §19): its sign-in and sign-out, and its static files.
  sessionRoutes(app, deps, failedTries, sessionGuard);
  // A new person accepting an invitation link: their account, the membership, a session.
  invitationSignUpRoutes(app, deps, failedTries);
  // Single sign-on with OpenID Connect (CONTRACT §24, docs/sso.md).
  ssoRoutes(app, deps);
  dashboardRoutes(app, deps.config.dashboardDir);
  // The public stats page: outside /api/v1, so its privacy rules decide, not the API key hook.
  publicStatsRoutes(app, deps, serializers, keys, failedTries);
  // The TLS proxy's question (CONTRACT §22): loopback and TRUST_PROXY addresses only, no key.
  tlsAskRoutes(app, deps, servedHosts);

  return app;
}
