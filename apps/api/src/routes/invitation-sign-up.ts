import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { acceptInvitationAsNewUser, createSession, CoreError, findSession, getAccount, getCurrentWorkspace, previewInvitation, switchWorkspace } from "@shortener/core";
import type { FailedTries } from "@shortener/web-guard";
import { clientGroup } from "@shortener/web-guard";
import type { ApiDeps } from "../deps.ts";
import { HttpError, unauthenticated } from "../errors.ts";
import { rejectNul } from "../http/nul.ts";
import { applyTryHeaders } from "../http/rate-limit.ts";
import { isHttps, sessionCookie } from "../http/session.ts";
import { invitationPreviewJson, workspaceJson } from "../serialize/workspaces.ts";
import { sessionJson } from "./session.ts";

/** Like sign-in, these take JSON only: a cross-site form cannot send it (no CORS), so no forged sign-up. */
function jsonBody(request: FastifyRequest): Record<string, unknown> {
  if (!/^application\/json\b/i.test(String(request.headers["content-type"] ?? ""))) {
    throw new HttpError(415, "unsupported_media_type", "The content type is not supported: send application/json.");
  }
  const body = (request.body ?? {}) as Record<string, unknown>;
  rejectNul([["", body]]);
  return body;
}

/**
 * The public side of an invitation link (`/app/invite/{token}`, CONTRACT §24), for a person without an
 * account: `POST /app/invitations/preview` shows where it leads (workspace, role, inviter, expiry), and
 * `POST /app/invitations/accept` creates their user (name, email, password) with the membership, in one
 * transaction, and signs them in as `POST /app/session` does: the session cookie, the account and the
 * CSRF token, acting in the workspace joined. A refused token — unknown or revoked, used, expired — is a
 * 422 on `token`, and each counts as a failed try of the client (CONTRACT §15), as a wrong sign-in does.
 */
export function invitationSignUpRoutes(app: FastifyInstance, deps: ApiDeps, failedTries: FailedTries): void {
  const sys = { db: deps.database.db, now: deps.now };

  /** Counts the try before it is checked; a success takes it back. */
  async function counted<T>(request: FastifyRequest, reply: FastifyReply, run: () => Promise<T>): Promise<T> {
    const verdict = await failedTries.begin(request.ip, "login");
    applyTryHeaders(reply, failedTries.limit.max, verdict);
    const result = await run();
    if (verdict.isAllowed) await verdict.refund();
    return result;
  }

  app.post("/app/invitations/preview", async (request, reply) => {
    const body = jsonBody(request);
    const preview = await counted(request, reply, () => previewInvitation(sys, typeof body.token === "string" ? body.token : ""));
    reply.header("cache-control", "no-store");
    return { data: invitationPreviewJson(preview), status: 200 };
  });

  app.post("/app/invitations/accept", async (request, reply) => {
    const body = jsonBody(request);
    const input = { token: body.token as string, name: body.name as string, email: body.email as string, password: body.password as string };
    const joined = await counted(request, reply, () => acceptInvitationAsNewUser(sys, input, { clientGroup: clientGroup(request.ip) }));
    const created = await createSession(sys, joined.userId, request.headers["user-agent"]);
    const opened = await findSession(sys, created.token);
    if (!opened) throw unauthenticated();
    let ctx = { ...sys, actor: opened };
    // The new member acts in the workspace joined, unless it requires single sign-on: then in their own, until they sign in with it.
    try {
      const workspace = await switchWorkspace({ ctx, sessionId: opened.sessionId, id: joined.workspaceId });
      ctx = { ...sys, actor: { ...opened, workspaceId: workspace.id, workspaceRole: workspace.role } };
    } catch (error) {
      if (!(error instanceof CoreError && error.reason === "sso_required")) throw error;
    }
    const [user, workspace] = await Promise.all([getAccount({ ctx }), getCurrentWorkspace({ ctx })]);
    reply.header("set-cookie", sessionCookie(deps.config.secret, created.token, isHttps(request))).header("cache-control", "no-store");
    return { data: { ...sessionJson(user, true, created.csrfToken), workspace: workspaceJson(workspace) }, status: 200 };
  });
}
