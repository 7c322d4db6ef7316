import type { FastifyInstance, RouteHandlerMethod } from "fastify";
import { HttpError, notFound } from "../errors.ts";
import type { Scope } from "@shortener/core";
import type { RouteRole, RouteScope } from "./auth.ts";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type Method = (typeof METHODS)[number];

declare module "fastify" {
  interface FastifyContextConfig {
    /** The scope a key needs for this route (CONTRACT §17); absent on the 405 answers. */
    scope?: RouteScope;
    /** The role in the workspace the caller acts in that this route needs (CONTRACT §24); absent on public routes and the 405s. */
    role?: RouteRole;
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
 * The roles of a resource whose reads and changes differ, as `ReadWriteScopes`; a method named on its
 * own (`DELETE: "owner"`) needs its own role.
 */
export type ReadWriteRoles = { read: RouteRole; write: RouteRole } & Partial<Record<Method, RouteRole>>;

type Handlers = Partial<Record<Method, RouteHandlerMethod>>;

/**
 * Registers `handlers` on `path`, and a 405 for every other method (CONTRACT §2). Next to each other, the
 * two things a caller needs, declared here and nowhere else — this is the one permission table:
 * `scope`, what a key needs (CONTRACT §17), and `role`, what the caller's role in the workspace they act
 * in must be at least (CONTRACT §24: `viewer < editor < admin < owner`; `instance-admin` for the routes
 * of the instance's administrators, which core checks on its own). Each is one value for every method,
 * or `{ read, write }` (GET needs `read`, the other methods `write`). `public` routes (outside the API's
 * guard) take neither. The API's guard checks both (app.ts); the OpenAPI document and the scope and
 * role matrix tests read them back through `registeredRoutes` (docs/adr/0027-scoped-api-keys.md,
 * docs/adr/0044-workspaces.md). `isSessionAllowed` lets the dashboard's session cookie in as well (its
 * methods only, never the 405s).
 */
export function resource(app: FastifyInstance, path: string, scope: "public", handlers: Handlers): void;
export function resource(app: FastifyInstance, path: string, scope: Scope | ReadWriteScopes, role: RouteRole | ReadWriteRoles, handlers: Handlers, options?: { isSessionAllowed?: boolean }): void;
export function resource(
  app: FastifyInstance,
  path: string,
  scope: RouteScope | ReadWriteScopes,
  roleOrHandlers: RouteRole | ReadWriteRoles | Handlers,
  maybeHandlers?: Handlers,
  options: { isSessionAllowed?: boolean } = {},
): void {
  const isPublic = scope === "public";
  const role = isPublic ? undefined : (roleOrHandlers as RouteRole | ReadWriteRoles);
  const handlers = (isPublic ? roleOrHandlers : maybeHandlers) as Handlers;
  const allowed = METHODS.filter((m) => handlers[m]);
  const allow = allowed.join(", ");
  for (const method of METHODS) {
    const handler = handlers[method];
    const needs = typeof scope === "string" ? scope : method === "GET" ? scope.read : scope.write;
    const needsRole = role === undefined || typeof role === "string" ? role : (role[method] ?? (method === "GET" ? role.read : role.write));
    app.route({
      method,
      url: path,
      // The 405 answers are not operations: the OpenAPI test leaves them out (registeredRoutes).
      config: handler ? { isMethodNotAllowed: false, scope: needs, ...(needsRole ? { role: needsRole } : {}), isSessionAllowed: options.isSessionAllowed === true } : { isMethodNotAllowed: true },
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
