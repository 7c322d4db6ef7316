import type { FastifyInstance, RouteHandlerMethod } from "fastify";
import * as core from "@shortener/core";
import type { ApiDeps } from "../deps.ts";
import { ctxOf } from "../http/auth.ts";
import { sendDeleted, sendList, sendOne } from "../http/envelope.ts";
import { idParam, resource } from "../http/routes.ts";
import type { Serializers } from "../serialize/resources.ts";

type Ctx = core.Ctx;
type Verbs<T> = {
  list(args: { ctx: Ctx; input: never }): Promise<core.Page<T>>;
  get(args: { ctx: Ctx; id: number }): Promise<T>;
  create(args: { ctx: Ctx; input: never }): Promise<T>;
  update(args: { ctx: Ctx; id: number; input: never }): Promise<T>;
  delete(args: { ctx: Ctx; id: number }): Promise<{ id: number }>;
};

/** The five REST operations of one resource (CONTRACT §2, §4, §5): thin — parse, core verb, serialise. */
function crud<T>(app: FastifyInstance, deps: ApiDeps, path: string, object: "link" | "domain" | "space" | "pixel", verbs: Verbs<T>, toJson: (item: T) => unknown): void {
  const body = (request: { body: unknown }) => (request.body ?? {}) as never;
  resource(app, path, {
    GET: async (request, reply) => sendList(request, reply, await verbs.list({ ctx: ctxOf(deps, request), input: request.query as never }), toJson),
    POST: async (request, reply) => sendOne(reply, toJson(await verbs.create({ ctx: ctxOf(deps, request), input: body(request) })), 201),
  });
  const update: RouteHandlerMethod = async (request, reply) =>
    sendOne(reply, toJson(await verbs.update({ ctx: ctxOf(deps, request), id: idParam(request.params), input: body(request) })));
  resource(app, `${path}/:id`, {
    GET: async (request, reply) => sendOne(reply, toJson(await verbs.get({ ctx: ctxOf(deps, request), id: idParam(request.params) }))),
    PUT: update,
    PATCH: update,
    DELETE: async (request, reply) => {
      const { id } = await verbs.delete({ ctx: ctxOf(deps, request), id: idParam(request.params) });
      return sendDeleted(reply, id, object);
    },
  });
}

export function resourceRoutes(app: FastifyInstance, deps: ApiDeps, json: Serializers): void {
  crud(app, deps, "/links", "link", { list: core.listLinks, get: core.getLink, create: core.createLink, update: core.updateLink, delete: core.deleteLink }, json.link);
  crud(app, deps, "/domains", "domain", { list: core.listDomains, get: core.getDomain, create: core.createDomain, update: core.updateDomain, delete: core.deleteDomain }, json.domain);
  crud(app, deps, "/spaces", "space", { list: core.listSpaces, get: core.getSpace, create: core.createSpace, update: core.updateSpace, delete: core.deleteSpace }, json.space);
  crud(app, deps, "/pixels", "pixel", { list: core.listPixels, get: core.getPixel, create: core.createPixel, update: core.updatePixel, delete: core.deletePixel }, json.pixel);
}
