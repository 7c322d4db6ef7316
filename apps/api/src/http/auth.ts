import type { FastifyRequest } from "fastify";
import { authenticateApiKey, type Authenticated, type Ctx } from "@shortener/core";
import type { ApiDeps } from "../deps.ts";
import { unauthenticated } from "../errors.ts";

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

/** onRequest hook: 401 unless the bearer token is a live key. */
export function authenticate(deps: ApiDeps) {
  return async (request: FastifyRequest): Promise<void> => {
    const token = bearerToken(request);
    const auth = token ? await authenticateApiKey({ db: deps.database.db, now: deps.now }, token) : null;
    if (!auth) throw unauthenticated();
    request.auth = auth;
  };
}

/** The core context of an authenticated request. */
export function ctxOf(deps: ApiDeps, request: FastifyRequest): Ctx {
  const auth = request.auth;
  if (!auth) throw unauthenticated();
  return { db: deps.database.db, now: deps.now, actor: { userId: auth.userId, role: auth.role } };
}
