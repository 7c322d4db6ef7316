import type { FastifyReply, FastifyRequest } from "fastify";
import type { Authenticated, Ctx, EventData } from "@shortener/core";
import type { ApiDeps } from "../deps.ts";
import { unauthenticated } from "../errors.ts";
import { createEventData } from "../serialize/events.ts";
import type { KeyCache } from "./key-cache.ts";
import type { RateLimiter } from "./rate-limit.ts";

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
 * Authenticates a request and counts it against the limits (CONTRACT §1, §10), for REST and tRPC alike:
 * a client address locked out by failed authentications gets 429 before its key is even looked up; a
 * missing or unknown key is 401 and counts as a failed authentication of the address; a live key has
 * `cost` requests counted (429 past the limit). Throws an `HttpError`; the headers are set on `reply`.
 */
export type Guard = (request: FastifyRequest, reply: FastifyReply, cost?: number) => Promise<Authenticated>;

export function createGuard(deps: ApiDeps, limiter: RateLimiter, keys: KeyCache): Guard {
  return async (request, reply, cost = 1) => {
    await limiter.checkAddress(request, reply);
    const token = bearerToken(request);
    const auth = token ? await keys.authenticate(token) : null;
    if (!auth) {
      await limiter.failAddress(request, reply);
      throw unauthenticated();
    }
    await limiter.consumeKey(request, reply, auth.keyId, cost);
    request.auth = auth;
    return auth;
  };
}

/** The core context of an authenticated request. */
export function ctxOf(deps: ApiDeps, request: FastifyRequest): Ctx {
  const auth = request.auth;
  if (!auth) throw unauthenticated();
  return coreCtx(deps, auth);
}

const eventData = new WeakMap<ApiDeps, EventData>();

/** The core context of a request: it acts as the key's user, and renders webhook events (docs/adr/0016-webhooks.md). */
export function coreCtx(deps: ApiDeps, auth: Authenticated): Ctx {
  let events = eventData.get(deps);
  if (!events) eventData.set(deps, (events = createEventData(deps.config)));
  return { db: deps.database.db, now: deps.now, actor: { userId: auth.userId, role: auth.role }, events };
}
