import type { FastifyInstance, RouteHandlerMethod } from "fastify";
import { HttpError, notFound } from "../errors.ts";
import type { Scope } from "@shortener/core";
import type { RouteScope } from "./auth.ts";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type Method = (typeof METHODS)[number];

declare module "fastify" {
  interface FastifyContextConfig {
    /** The scope a key needs for this route (CONTRACT §17); absent on the 405 answers. */
    scope?: RouteScope;
    isMethodNotAllowed?: boolean;
    /**
     * Whether the dashboard's session cookie is accepted here next to a bearer key (with the CSRF header
     * on every method but GET and HEAD): only the CSV upload and its errors file, which tRPC cannot carry
     * (docs/adr/0028-dashboard.md).
     */
    isSessionAllowed?: boolean;
  }
}

/** The scopes of a resource whose reads and changes differ: `read` for GET, `write` for every other method. */
export type ReadWriteScopes = { read: Scope; write: Scope };

/**
 * Registers `handlers` on `path`, and a 405 for every other method (CONTRACT §2). `scope` is what a key
 * needs (CONTRACT §17): one scope for every method, or `{ read, write }` (GET needs `read`, the other
 * methods `write`); `public` for the few routes outside the API's guard. It is the one place a route's
 * scope is declared: the API's guard checks it (app.ts); the OpenAPI document and the scope matrix test
 * read it back through `registeredRoutes` (docs/adr/0027-scoped-api-keys.md). `isSessionAllowed` lets the
 * dashboard's session cookie in as well (its methods only, never the 405s).
 */
export function resource(
  app: FastifyInstance,
  path: string,
  scope: RouteScope | ReadWriteScopes,
  handlers: Partial<Record<Method, RouteHandlerMethod>>,
  options: { isSessionAllowed?: boolean } = {},
): void {
  const allowed = METHODS.filter((m) => handlers[m]);
  const allow = allowed.join(", ");
  for (const method of METHODS) {
    const handler = handlers[method];
    const needs = typeof scope === "string" ? scope : method === "GET" ? scope.read : scope.write;
    app.route({
      method,
      url: path,
      // The 405 answers are not operations: the OpenAPI test leaves them out (registeredRoutes).
      config: handler ? { isMethodNotAllowed: false, scope: needs, isSessionAllowed: options.isSessionAllowed === true } : { isMethodNotAllowed: true },
      handler:
        handler ??
        (async (_request, reply) => {
          reply.header("allow", allow);
          throw new HttpError(405, "method_not_allowed", `The ${method} method is not supported for this route. Supported methods: ${allow}.`);
        }),
    });
  }
}

/** The `:id` of a path: a positive 32-bit integer, else the resource simply does not exist (404). */
export function idParam(params: unknown, name = "id"): number {
  const raw = (params as Record<string, unknown>)[name];
  const id = typeof raw === "string" && /^[1-9]\d{0,9}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id) || id > 2_147_483_647) throw notFound();
  return id;
}
