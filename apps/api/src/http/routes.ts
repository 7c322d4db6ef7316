import type { FastifyInstance, RouteHandlerMethod } from "fastify";
import { HttpError, notFound } from "../errors.ts";
import type { RouteScope } from "./auth.ts";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type Method = (typeof METHODS)[number];

declare module "fastify" {
  interface FastifyContextConfig {
    /** The scope a key needs for this route (CONTRACT §17); absent on the 405 answers. */
    scope?: RouteScope;
    isMethodNotAllowed?: boolean;
  }
}

/**
 * Registers `handlers` on `path`, and a 405 for every other method (CONTRACT §2). `scopes` names, for
 * each method handled, the scope a key needs (CONTRACT §17): the one place a route's scope is declared.
 * The API's guard checks it (app.ts); the OpenAPI document and the scope matrix test read it back
 * through `registeredRoutes`.
 */
export function resource<M extends Method>(app: FastifyInstance, path: string, scopes: Record<M, RouteScope>, handlers: Record<NoInfer<M>, RouteHandlerMethod>): void {
  const byMethod = handlers as Partial<Record<Method, RouteHandlerMethod>>;
  const scopeOf = scopes as Partial<Record<Method, RouteScope>>;
  const allowed = METHODS.filter((m) => byMethod[m]);
  const allow = allowed.join(", ");
  for (const method of METHODS) {
    const handler = byMethod[method];
    const scope = scopeOf[method];
    if (handler && !scope) throw new Error(`${method} ${path} declares no scope`);
    app.route({
      method,
      url: path,
      // The 405 answers are not operations: the OpenAPI test leaves them out (registeredRoutes).
      config: handler ? { isMethodNotAllowed: false, scope } : { isMethodNotAllowed: true },
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
