import type { FastifyReply, FastifyRequest } from "fastify";
import { hasRole, hasScope, roleRefusal, type Authenticated, type Ctx, type EventData, type Scope, type WorkspaceRole } from "@shortener/core";
import { clientGroup, type FailedTries } from "@shortener/web-guard";
import type { ApiDeps } from "../deps.ts";
import { HttpError, unauthenticated } from "../errors.ts";
import { createEventData } from "../serialize/events.ts";
import type { KeyCache } from "./key-cache.ts";
import { applyTryHeaders, type RateLimiter } from "./rate-limit.ts";

declare module "fastify" {
  interface FastifyRequest {
    auth: Authenticated | null;
  }
}

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/** Reads the bearer token from the Authorization header only (never the query string or body). */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  return header ? BEARER.exec(header)?.[1] : undefined;
}

/**
 * Authenticates a request and counts it against the limits (CONTRACT §1, §10, §15), for REST and tRPC
 * alike. The key is looked up first (this process's cache, else one read), the same way whatever its
 * client did: a live key gets its normal answer, limited only by its own request limit (`cost`
 * requests, 429 past it), even from an address or /64 that is blocked for failed tries. Only a failure
 * — no key, an unknown, revoked or expired one — is a try of the client group at `key`: a 401 within the
 * limit, a 429 past it (answered from memory, without a store call, once this process knows the window
 * is used up). Throws an `HttpError`; the headers are set on `reply` (docs/adr/0020-failed-try-limits.md).
 */
export type Guard = (request: FastifyRequest, reply: FastifyReply, cost?: number) => Promise<Authenticated>;

export function createGuard(limiter: RateLimiter, keys: KeyCache, failedTries: FailedTries): Guard {
  return async (request, reply, cost = 1) => {
    const auth = await authenticateRequest(request, reply, keys, failedTries);
    if (!auth) throw unauthenticated();
    await limiter.consumeKey(request, reply, auth.keyId, cost);
    keys.touch(auth.keyId);
    request.auth = auth;
    return auth;
  };
}

/**
 * What an operation needs (CONTRACT §17): one scope of the key, or nothing (`public`: no key at all, the
 * OpenAPI document and its page). Each REST route declares it where it is registered (http/routes.ts),
 * each tRPC procedure in its meta (trpc/init.ts); docs/adr/0027-scoped-api-keys.md.
 */
export type RouteScope = Scope | "public";

/**
 * What an operation needs of the caller's role in the workspace they act in (CONTRACT §24): a workspace
 * role, or `instance-admin` for the routes of the instance's administrators (users, backups), which
 * core checks against the user's own role whatever their role in the workspace.
 */
export type RouteRole = WorkspaceRole | "instance-admin";

/** A role below the one declared: `403 forbidden` (REST), `FORBIDDEN` (tRPC), naming the role needed. */
export function assertRole(auth: Pick<Authenticated, "workspaceRole">, role: RouteRole): void {
  if (role === "instance-admin") return;
  if (!hasRole(auth.workspaceRole, role)) throw new HttpError(403, "forbidden", roleRefusal(role, auth.workspaceRole));
}

/** A key without `scope`: `403 forbidden` (REST), `FORBIDDEN` (tRPC). */
export function assertScope(auth: Authenticated, scope: Scope): void {
  if (!hasScope(auth.scopes, scope)) throw new HttpError(403, "forbidden", `This API key does not have the ${scope} scope.`);
}

/**
 * CONTRACT §17: an export's password hashes (`include=secrets`) go only to a key that could set them,
 * one with `links:write`; a read-only key (a reporting tool) asking for them: `403 forbidden`. `include`
 * is the value sent (core validates it).
 */
export function assertExportIncludeAllowed(scopes: readonly Scope[], include: unknown): void {
  if (include === "secrets" && !hasScope(scopes, "links:write")) throw new HttpError(403, "forbidden", "Password hashes (include=secrets) are exported only to an API key with the links:write scope.");
}

/** The answer header that says whether an export carries the password hashes: `included`, or `withheld` (ask with include=secrets). */
export const EXPORT_SECRETS_HEADER = "shortener-export-secrets";

/**
 * The bearer key of a request, with its failures counted as `createGuard` says: the live key (never
 * refused for its client's failed tries), null for none or an unknown one (a counted failed try), or a
 * thrown 429 once its client has used up its tries. The stats page uses it for owner keys.
 */
export async function authenticateRequest(request: FastifyRequest, reply: FastifyReply, keys: KeyCache, failedTries: FailedTries): Promise<Authenticated | null> {
  const token = bearerToken(request);
  const auth = token ? await keys.authenticate(token) : null;
  if (auth) return auth;
  // Counted after the check: a key has 238 random bits (`ADMIN_API_KEY` at least 32 characters), so what a burst of checks could reveal is
  // nothing; what the limit saves is the work of answering a guesser (docs/adr/0020-failed-try-limits.md).
  const verdict = await failedTries.begin(request.ip, "key");
  applyTryHeaders(reply, failedTries.limit.max, verdict);
  return null;
}

/** The core context of an authenticated request. */
export function ctxOf(deps: ApiDeps, request: FastifyRequest): Ctx {
  const auth = request.auth;
  if (!auth) throw unauthenticated();
  return coreCtx(deps, auth, request);
}

const eventData = new WeakMap<ApiDeps, EventData>();

/**
 * The core context of a request: it acts as the key's user within the key's (or session's) scopes and
 * expiry (docs/adr/0033-session-bounds.md), and renders webhook events (docs/adr/0023-webhooks.md).
 */
export function coreCtx(deps: ApiDeps, auth: Authenticated, request: FastifyRequest): Ctx {
  let events = eventData.get(deps);
  if (!events) eventData.set(deps, (events = createEventData(deps.config)));
  // A session's requests count under the negative of its id (http/session.ts); a key's under its own.
  const via = { keyId: auth.keyId > 0 ? auth.keyId : null, sessionId: auth.keyId < 0 ? -auth.keyId : null, clientGroup: clientGroup(request.ip) };
  const actor = { userId: auth.userId, role: auth.role, workspaceId: auth.workspaceId, workspaceRole: auth.workspaceRole, bounds: { scopes: auth.scopes, expiresAt: auth.expiresAt }, via };
  return { db: readerOf(deps, auth, request), now: deps.now, actor, events };
}

/**
 * Where a request's core context reads and writes: a GET or HEAD (a list, a show, statistics, an export,
 * a tRPC query) reads through the replicas' router, which keeps a caller who just wrote on the primary;
 * every other method works on the primary (CONTRACT §26). A reader runs transactions on the primary, and
 * a statement a replica refuses runs there too.
 */
function readerOf(deps: ApiDeps, auth: Authenticated, request: FastifyRequest) {
  const reads = deps.reads;
  if (!reads || (request.method !== "GET" && request.method !== "HEAD")) return deps.database.db;
  return reads.readerFor(auth.userId);
}
