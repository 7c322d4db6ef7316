import type { AnyRouter } from "@trpc/server";
import { fastifyRequestHandler, fastifyTRPCPlugin, type CreateFastifyContextOptions, type FastifyTRPCPluginOptions } from "@trpc/server/adapters/fastify";
import type { FastifyInstance } from "fastify";
import { createQrCache, type QrCache } from "@shortener/core";
import type { FailedTries } from "@shortener/web-guard";
import type { ApiDeps } from "../deps.ts";
import { createDomainVerbs } from "../domain-policy.ts";
import { coreCtx, type Guard } from "../http/auth.ts";
import { assertJsonDepth } from "../http/json.ts";
import type { SessionGuard } from "../http/session.ts";
import { beginPasswordTry } from "../http/sign-in-tries.ts";
import { createSerializers } from "../serialize/resources.ts";
import { createMailer, type Mailer } from "../mail/mailer.ts";
import { HttpError, RETRY_AFTER_SECONDS } from "../errors.ts";
import { toTrpcError } from "./errors.ts";
import { contextHandle, type TrpcRequestHandle } from "./init.ts";

const TRPC_MEDIA_TYPE_MESSAGE = "The content type is not supported: send application/json.";
const isMultipart = (type: string | undefined) => /^\s*multipart\//i.test(type ?? "");

/**
 * Whether tRPC's adapter can build the request's URL and a fetch `Request` on it: `url` on
 * `http://<Host>` (no Host: `localhost`), with no credentials (`a@b` in the Host) in it.
 */
function isValidHost(host: string | undefined, url: string): boolean {
  if (host === undefined) return true;
  try {
    const parsed = new URL(url, `http://${host}`);
    return parsed.username === "" && parsed.password === "";
  } catch {
    return false;
  }
}

/**
 * Mounts `router` at `prefix` with fastifyTRPCPlugin. The context is created once per HTTP request,
 * through the same guard as REST: the same key, the same limits (a batch counts each of its calls).
 * Its failures reach every call of the batch as tRPC errors (401 UNAUTHORIZED, 429 TOO_MANY_REQUESTS).
 */
export async function registerTrpc(
  app: FastifyInstance,
  options: { deps: ApiDeps; guard: Guard; sessionGuard?: SessionGuard; failedTries?: FailedTries; router: AnyRouter; prefix: string; qr?: QrCache; mailer?: Mailer },
): Promise<void> {
  const { deps, guard, sessionGuard, failedTries, router, prefix, qr = createQrCache() } = options;
  const mailer = options.mailer ?? createMailer({ ...deps.config, smtpUrl: undefined }, app.log);
  const json = createSerializers(deps.config);
  const domains = createDomainVerbs(deps.config);

  const createContext = async ({ req, res, info }: CreateFastifyContextOptions): Promise<TrpcRequestHandle> => {
    try {
      const cost = Math.max(1, info.calls.length);
      // A bearer key wins; without one, the dashboard's session cookie (CONTRACT §19).
      const viaSession = sessionGuard && req.headers.authorization === undefined ? await sessionGuard(req, res, cost) : null;
      const auth = viaSession?.auth ?? (await guard(req, res, cost));
      // Nested deeper than REST takes: refused before tRPC parses the input (CONTRACT §15), like REST's parser.
      assertJsonDepth(typeof req.body === "string" ? req.body : null);
      if (req.method === "GET") assertJsonDepth(new URLSearchParams(req.url.slice(req.url.indexOf("?") + 1 || req.url.length)).get("input"));
      const session = viaSession
        ? { id: viaSession.session.sessionId, csrfToken: viaSession.session.csrfToken, isKeyOpened: viaSession.session.apiKeyId !== null, isSso: viaSession.session.isSso }
        : null;
      return contextHandle({
        core: coreCtx(deps, auth, req),
        keyId: auth.keyId,
        scopes: auth.scopes,
        json: json.forScopes(auth.scopes),
        log: req.log,
        domains,
        webhookOptions: { allowPrivateTargets: deps.config.webhookAllowPrivate },
        qr,
        session,
        mailer,
        publicUrl: deps.config.publicUrl,
        isSsoConfigured: deps.config.oidc !== undefined,
        beginPasswordTry: (email) => {
          if (!failedTries) throw new Error("tRPC registered without a failed-try limiter: password guesses cannot be counted");
          return beginPasswordTry(req, res, failedTries, deps.config.secret, email);
        },
      });
    } catch (error) {
      throw toTrpcError(error);
    }
  };

  const trpcOptions: FastifyTRPCPluginOptions<AnyRouter>["trpcOptions"] = {
    router,
    createContext,
    onError({ error, req, path }) {
      if (error.code === "INTERNAL_SERVER_ERROR") req.log.error({ err: error.cause ?? error, path }, "unexpected error");
      else if (error.code === "SERVICE_UNAVAILABLE") req.log.warn({ path, reason: (error.cause as Error | undefined)?.message }, "database unreachable");
    },
    // While the database is unreachable, as REST: 503 with Retry-After (CONTRACT §16).
    responseMeta({ errors }) {
      return errors.some((e) => e.code === "SERVICE_UNAVAILABLE") ? { headers: { "retry-after": String(RETRY_AFTER_SECONDS) } } : {};
    },
  };

  await app.register(
    async (scope) => {
      // tRPC answers HEAD with a bare 204 before creating a context: guard it here, so it is counted too.
      scope.addHook("onRequest", async (req, res) => {
        // tRPC would read multipart as FormData inputs (or, with a body that is no socket, fail with a
        // 500): calls take JSON only, so multipart is the 415 of any other type (CONTRACT §1, §15).
        if (isMultipart(req.headers["content-type"])) throw new HttpError(415, "unsupported_media_type", TRPC_MEDIA_TYPE_MESSAGE);
        // tRPC builds a URL and a Request from the Host header and throws (outside its own error handling: a 500) when it cannot.
        if (!isValidHost(req.headers.host, req.url)) throw new HttpError(400, "bad_request", "The Host header is not valid.");
        if (req.method === "HEAD") await guard(req, res);
      });
      await scope.register(fastifyTRPCPlugin, { trpcOptions });
      // `/trpc`, `/trpc/` and deeper paths: tRPC's own NOT_FOUND, after the same guard (so, with limit headers).
      scope.setNotFoundHandler((req, res) => fastifyRequestHandler({ ...trpcOptions, req, res, path: "" }));
    },
    { prefix },
  );
}
