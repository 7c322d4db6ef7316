import { randomBytes } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { createSession, signInWithSso, SsoRefusedError, ValidationError } from "@shortener/core";
import type { ApiDeps } from "../deps.ts";
import { sessionCookie, isHttps } from "../http/session.ts";
import { createOidcClient, SsoCallbackError, SsoUnavailableError, type OidcClient } from "../sso/oidc-client.ts";
import { clearedPendingCookie, pendingCookie, readPending } from "../sso/pending-cookie.ts";
import { escapeHtml, statsCsp, statsHtmlPage } from "../stats-page/html.ts";

/** Where the provider sends the browser back (register it at the provider: docs/sso.md). */
export const SSO_CALLBACK_PATH = "/app/session/sso/callback";
export const SSO_START_PATH = "/app/session/sso";

/** Where a signed-in browser lands: the dashboard. */
const DASHBOARD = "/app/";

type Refusal = { status: number; code: string; title: string; message: string };

/**
 * A refusal, as the browser that followed the flow sees it — a small page with the reason and the way
 * back to the sign-in screen — or as JSON (CONTRACT §2's error body) for a client that asks for it.
 * Never a session, never a 500.
 */
function refuse(request: FastifyRequest, reply: FastifyReply, refusal: Refusal, clearPending: boolean) {
  reply.code(refusal.status).header("cache-control", "no-store");
  if (clearPending) reply.header("set-cookie", clearedPendingCookie(isHttps(request)));
  const accept = String(request.headers.accept ?? "");
  if (/application\/json/i.test(accept) && !/text\/html/i.test(accept)) return reply.send({ message: refusal.message, code: refusal.code, status: refusal.status });
  const nonce = randomBytes(16).toString("base64");
  return reply
    .headers({ "content-type": "text/html; charset=utf-8", "content-security-policy": statsCsp(nonce), "x-content-type-options": "nosniff", "referrer-policy": "no-referrer" })
    .send(
      statsHtmlPage(
        refusal.title,
        `<main class="pw"><p class="eyebrow">${refusal.status}</p><h1>${escapeHtml(refusal.title)}</h1><p class="short" data-code="${escapeHtml(refusal.code)}">${escapeHtml(refusal.message)}</p><p><a href="${DASHBOARD}">Back to sign-in</a></p></main>`,
        nonce,
      ),
    );
}

const NOT_CONFIGURED: Refusal = {
  status: 404,
  code: "sso_not_configured",
  title: "Single sign-on is not set up",
  message: "Single sign-on is not set up on this service: sign in with your email and password.",
};
const UNAVAILABLE: Refusal = {
  status: 502,
  code: "sso_unavailable",
  title: "The identity provider cannot be reached",
  message: "The identity provider cannot be reached or answered unexpectedly. Try again in a moment.",
};

/** The callback URL of this request's own address (scheme and host, through TRUST_PROXY's forwarded headers); null for a Host that makes no URL. */
function redirectUriOf(request: FastifyRequest): string | null {
  try {
    const url = new URL(SSO_CALLBACK_PATH, `${request.protocol}://${request.host}`);
    return url.pathname === SSO_CALLBACK_PATH && !url.username && !url.password ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * Single sign-on with OpenID Connect for the dashboard (CONTRACT §24, docs/sso.md, ADR 0046):
 * - `GET /app/session/providers`: public; which sign-ins this service offers (`sso` when OIDC_* are set);
 * - `GET /app/session/sso`: starts a sign-in (a 303 to the provider, the pending sign-in in a cookie);
 * - `GET /app/session/sso/callback`: the provider's redirect back; finds, links or creates the user
 *   (core's `signInWithSso`), opens an SSO session and sends the browser to the dashboard (303).
 */
export function ssoRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const sys = { db: deps.database.db, now: deps.now };
  const client: OidcClient | undefined = deps.config.oidc ? createOidcClient(deps.config.oidc) : undefined;

  app.get("/app/session/providers", async (_request, reply) => {
    reply.header("cache-control", "no-store");
    return { data: { password: true, sso: client !== undefined }, status: 200 };
  });

  app.get(SSO_START_PATH, async (request, reply) => {
    if (!client) return refuse(request, reply, NOT_CONFIGURED, false);
    const redirectUri = redirectUriOf(request);
    if (!redirectUri) return refuse(request, reply, { status: 400, code: "bad_request", title: "Bad address", message: "The request's Host header makes no address to return to." }, false);
    try {
      const { url, pending } = await client.begin(redirectUri);
      return reply
        .header("cache-control", "no-store")
        .header("set-cookie", pendingCookie(deps.config.secret, pending, deps.now(), isHttps(request)))
        .redirect(url.href, 303);
    } catch (error) {
      if (!(error instanceof SsoUnavailableError)) throw error;
      request.log.warn({ reason: error.message }, "single sign-on: provider unavailable");
      return refuse(request, reply, UNAVAILABLE, false);
    }
  });

  app.get(SSO_CALLBACK_PATH, async (request, reply) => {
    if (!client) return refuse(request, reply, NOT_CONFIGURED, false);
    const pending = readPending(request.headers.cookie, deps.config.secret, deps.now());
    if (!pending) {
      return refuse(
        request,
        reply,
        {
          status: 400,
          code: "sso_not_started",
          title: "This sign-in cannot be finished",
          message: "This sign-in was not started in this browser, was finished already, or took longer than 10 minutes. Start again.",
        },
        true,
      );
    }
    const at = request.url.indexOf("?");
    const query = new URLSearchParams(at < 0 ? "" : request.url.slice(at + 1));
    if (query.get("state") !== pending.state) {
      return refuse(
        request,
        reply,
        { status: 400, code: "sso_state_mismatch", title: "This sign-in cannot be finished", message: "The provider's answer is not for the sign-in started in this browser. Start again." },
        true,
      );
    }
    try {
      const identity = await client.finish(query, pending);
      const { userId, outcome } = await signInWithSso(sys, identity);
      const created = await createSession(sys, userId, request.headers["user-agent"], null, { isSso: true });
      request.log.info({ userId, outcome }, "single sign-on");
      return reply
        .header("cache-control", "no-store")
        .header("set-cookie", [clearedPendingCookie(isHttps(request)), sessionCookie(deps.config.secret, created.token, isHttps(request))])
        .redirect(DASHBOARD, 303);
    } catch (error) {
      if (error instanceof SsoUnavailableError) {
        request.log.warn({ reason: error.message }, "single sign-on: provider unavailable");
        return refuse(request, reply, UNAVAILABLE, true);
      }
      if (error instanceof SsoCallbackError) {
        request.log.info({ code: error.code, reason: (error.cause as Error | undefined)?.message }, "single sign-on: callback refused");
        return refuse(request, reply, { status: 400, code: error.code, title: "Single sign-on failed", message: error.message }, true);
      }
      if (error instanceof SsoRefusedError) {
        return refuse(request, reply, { status: 403, code: error.reason, title: "Single sign-on refused", message: error.message }, true);
      }
      if (error instanceof ValidationError) {
        return refuse(request, reply, { status: 422, code: "validation_failed", title: "Single sign-on refused", message: error.message }, true);
      }
      throw error;
    }
  });
}
