import type { FastifyInstance, FastifyRequest, RouteHandlerMethod } from "fastify";
import type { z } from "zod";
import type { ApiDeps } from "../deps.ts";
import { ctxOf } from "../http/auth.ts";
import { sendDeleted, sendList, sendOne } from "../http/envelope.ts";
import { formInput } from "../http/form.ts";
import { idParam, resource } from "../http/routes.ts";
import { bulkLinkHandlers } from "./link-tools.ts";
import * as resources from "../resources.ts";
import type { ResourceObject, ResourceSpec } from "../resources.ts";
import type { Serializers } from "../serialize/resources.ts";
import type { DomainVerbs } from "../domain-policy.ts";
import type * as core from "@shortener/core";

/**
 * The five REST operations of one resource (CONTRACT §2, §4, §5): thin — decode (form strings into the
 * typed values the resource's input schemas take), core verb, serialise.
 */
function crud<T, J, O extends ResourceObject>(
  app: FastifyInstance,
  deps: ApiDeps,
  spec: ResourceSpec<T, J, O, z.ZodType, z.ZodType, z.ZodType>,
  json: Serializers,
  /** More methods on the collection's path (the links' bulk PATCH and DELETE, CONTRACT §17). */
  collection: { PATCH?: RouteHandlerMethod; DELETE?: RouteHandlerMethod } = {},
): void {
  const { path, object, verbs, input, scopes, roles } = spec;
  /** The serialiser for the request's key (what its scopes may see, `Serializers.forScopes`). */
  const toJsonFor = (request: FastifyRequest) => spec.toJson(json.forScopes(request.auth?.scopes ?? []));
  resource(app, path, scopes, roles, {
    GET: async (request, reply) => sendList(request, reply, await verbs.list({ ctx: ctxOf(deps, request), input: formInput(input.list, request.query) }), toJsonFor(request)),
    POST: async (request, reply) => sendOne(reply, toJsonFor(request)(await verbs.create({ ctx: ctxOf(deps, request), input: formInput(input.create, request.body) })), 201),
    ...collection,
  });
  const update: RouteHandlerMethod = async (request, reply) =>
    sendOne(reply, toJsonFor(request)(await verbs.update({ ctx: ctxOf(deps, request), id: idParam(request.params), input: formInput(input.update, request.body) })));
  resource(app, `${path}/:id`, scopes, roles, {
    GET: async (request, reply) => sendOne(reply, toJsonFor(request)(await verbs.get({ ctx: ctxOf(deps, request), id: idParam(request.params) }))),
    PUT: update,
    PATCH: update,
    DELETE: async (request, reply) => {
      const { id } = await verbs.delete({ ctx: ctxOf(deps, request), id: idParam(request.params) });
      return sendDeleted(reply, id, object);
    },
  });
}

export function resourceRoutes(app: FastifyInstance, deps: ApiDeps, json: Serializers, domainsOf: DomainVerbs): void {
  crud(app, deps, resources.links, json, bulkLinkHandlers(deps, json));
  crud(app, deps, { ...resources.domains, verbs: { ...resources.domains.verbs, create: ({ ctx, input }) => domainsOf.create({ ctx, input: input as core.CreateDomainInput }) } }, json);
  resource(app, "/domains/:id/verify", "domains:write", "admin", {
    POST: async (request, reply) => sendOne(reply, json.domainDetail(await domainsOf.verify({ ctx: ctxOf(deps, request), id: idParam(request.params) }))),
  });
  crud(app, deps, resources.spaces, json);
  crud(app, deps, resources.pixels, json);
}
