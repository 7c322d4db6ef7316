import type { FastifyInstance, RouteHandlerMethod } from "fastify";
import { HttpError, notFound } from "../errors.ts";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type Method = (typeof METHODS)[number];

/** Registers `handlers` on `path`, and a 405 for every other method (CONTRACT §2). */
export function resource(app: FastifyInstance, path: string, handlers: Partial<Record<Method, RouteHandlerMethod>>): void {
  const allowed = METHODS.filter((m) => handlers[m]);
  const allow = allowed.join(", ");
  for (const method of METHODS) {
    const handler = handlers[method];
    app.route({
      method,
      url: path,
      // The 405 answers are not operations: the OpenAPI test leaves them out (registeredRoutes).
      config: { isMethodNotAllowed: !handler },
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
