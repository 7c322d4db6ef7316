import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { checkKeySignIn, checkPasswordSignIn, createSession, deleteSession, findSession, getAccount, hasPassword, isSsoRequiredOf, SSO_REQUIRED_MESSAGE, type SessionKey } from "@shortener/core";
import type { FailedTries } from "@shortener/web-guard";
import type { ApiDeps } from "../deps.ts";
import { HttpError, unauthenticated } from "../errors.ts";
import { rejectNul } from "../http/nul.ts";
import { applyTryHeaders } from "../http/rate-limit.ts";
import { beginPasswordTry, type PasswordTry } from "../http/sign-in-tries.ts";
import { clearedSessionCookie, isHttps, sessionCookie, sessionToken, type SessionGuard } from "../http/session.ts";
import { toUserJson } from "../serialize/users.ts";

/** The JSON the dashboard gets about who signed in: the account, whether a password is set, and the CSRF token. */
export function sessionJson(user: Parameters<typeof toUserJson>[0], isPasswordSet: boolean, csrfToken: string) {
  return { ...toUserJson(user), has_password: isPasswordSet, is_sso: false, csrf_token: csrfToken };
}

/** Sign-in and sign-out take JSON only: a cross-site form cannot send it (no CORS), so no login CSRF. */
function requireJson(request: FastifyRequest): void {
  if (!/^application\/json\b/i.test(String(request.headers["content-type"] ?? ""))) {
    throw new HttpError(415, "unsupported_media_type", "The content type is not supported: send application/json.");
  }
}

/**
 * `POST /app/session` signs in (email + password, or a one-time API key for a user without a password:
 * the account's own key or one with the `account` scope, any other a 401 like a wrong one)
 * and sets the session cookie; `DELETE /app/session` signs this session out. Every sign-in is a try of
 * the client at `login`, counted before it is checked (CONTRACT §15): past 10 in 15 minutes, 429. A
 * password is a guess at its account too (`beginPasswordTry`): a few an hour, whatever the addresses.
 * A member of a workspace that requires single sign-on gets a 403 `sso_required` instead of a session
 * (the instance admin aside); single sign-on itself is `routes/sso.ts`.
 */
export function sessionRoutes(app: FastifyInstance, deps: ApiDeps, failedTries: FailedTries, sessionGuard: SessionGuard): void {
  const sys = { db: deps.database.db, now: deps.now };

  app.post("/app/session", async (request: FastifyRequest, reply: FastifyReply) => {
    requireJson(request);
    const body = (request.body ?? {}) as Record<string, unknown>;
    // A NUL in any field is a 422 naming it, like every other input (CONTRACT §15), not a database error.
    rejectNul([["", body]]);
    let passwordTry: PasswordTry | undefined;
    // A key's session keeps the key's scopes and ends with it; a password's has the user's full rights.
    let found: { userId: number; key?: SessionKey } | null;
    if (body.api_key !== undefined) {
      const verdict = await failedTries.begin(request.ip, "login");
      applyTryHeaders(reply, failedTries.limit.max, verdict);
      found = await checkKeySignIn(sys, { api_key: body.api_key as string });
      if (found && verdict.isAllowed) await verdict.refund();
    } else {
      passwordTry = await beginPasswordTry(request, reply, failedTries, deps.config.secret, typeof body.email === "string" ? body.email : "");
      found = await checkPasswordSignIn(sys, { email: body.email as string, password: body.password as string });
      if (found) await passwordTry.succeeded();
    }
    if (!found) throw unauthenticated();
    // A member of a workspace that requires single sign-on signs in with it (CONTRACT §24), the instance
    // admin aside (break-glass: docs/sso.md). Told only once the password or key was right.
    if (await isSsoRequiredOf(sys, found.userId)) throw new HttpError(403, "sso_required", SSO_REQUIRED_MESSAGE);
    const created = await createSession(sys, found.userId, request.headers["user-agent"], found.key ?? null);
    const opened = await findSession(sys, created.token);
    if (!opened) throw unauthenticated();
    const ctx = { ...sys, actor: opened };
    const [user, isPasswordSet] = await Promise.all([getAccount({ ctx }), hasPassword({ ctx })]);
    const session = sessionCookie(deps.config.secret, created.token, isHttps(request));
    reply.header("set-cookie", passwordTry ? [session, passwordTry.deviceCookie(isHttps(request))] : session).header("cache-control", "no-store");
    return { data: sessionJson(user, isPasswordSet, created.csrfToken), status: 200 };
  });

  app.delete("/app/session", async (request: FastifyRequest, reply: FastifyReply) => {
    // The session's own CSRF token is required, so another site cannot sign a user out.
    const found = await sessionGuard(request, reply);
    if (!found) throw unauthenticated();
    const token = sessionToken(request, deps.config.secret);
    if (token) await deleteSession(sys, token);
    reply.header("set-cookie", clearedSessionCookie(isHttps(request))).header("cache-control", "no-store");
    return { status: 200 };
  });
}
