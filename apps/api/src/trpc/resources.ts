import type { z } from "zod";
import { CreateDomainInput, IdInput } from "@shortener/core";
import * as resources from "../resources.ts";
import type { ResourceObject, ResourceSpec } from "../resources.ts";
import { router, scoped } from "./init.ts";
import { domainVisitsProcedure } from "./stats.ts";
import { toDeletedJson, toListJson } from "./lists.ts";

/**
 * CONTRACT §11: the five procedures of one resource, generated from its spec as REST's `crud()` is —
 * the same core verbs, the very zod schemas REST validates with, the same JSON as REST's `data`.
 * `update` takes `{ id, ...fields }`: the id schema and the update schema chained, each parsed on its
 * own and merged by tRPC, so field errors have REST's names (`url`, not `data.url`). The router's types
 * stay exact: the typed client infers every input and output (packages/client/test/types.test-d.ts).
 */
export function crudRouter<T, J, O extends ResourceObject, L extends z.ZodType, C extends z.ZodType, U extends z.ZodType>(spec: ResourceSpec<T, J, O, L, C, U>) {
  return router(crudProcedures(spec));
}

/** The five procedures of `crudRouter`, as a record a router can extend or override (domains do). */
export function crudProcedures<T, J, O extends ResourceObject, L extends z.ZodType, C extends z.ZodType, U extends z.ZodType>(spec: ResourceSpec<T, J, O, L, C, U>) {
  const { verbs, input } = spec;
  const read = () => scoped(spec.scopes.read, spec.roles.read);
  const write = () => scoped(spec.scopes.write, spec.roles.write);
  return {
    list: read()
      .input(input.list)
      .query(async ({ ctx, input }) => toListJson(await verbs.list({ ctx: ctx.core, input }), spec.toJson(ctx.json))),
    get: read()
      .input(IdInput)
      .query(async ({ ctx, input }) => spec.toJson(ctx.json)(await verbs.get({ ctx: ctx.core, id: input.id }))),
    create: write()
      .input(input.create)
      .mutation(async ({ ctx, input }) => spec.toJson(ctx.json)(await verbs.create({ ctx: ctx.core, input }))),
    update: write()
      .input(IdInput)
      .input<U>(input.update as never)
      .mutation(async ({ ctx, input }) => spec.toJson(ctx.json)(await verbs.update({ ctx: ctx.core, id: input.id, input }))),
    delete: write()
      .input(IdInput)
      .mutation(async ({ ctx, input }) => toDeletedJson(await verbs.delete({ ctx: ctx.core, id: input.id }), spec.object)),
  };
}

export const linksRouter = crudRouter(resources.links);
/** Domains: creating one and verifying it follow the operator's settings (CONTRACT §14), kept in the context. */
export const domainsRouter = router({
  ...crudProcedures(resources.domains),
  create: scoped("domains:write", "admin")
    .input(CreateDomainInput)
    .mutation(async ({ ctx, input }) => ctx.json.domainDetail(await ctx.domains.create({ ctx: ctx.core, input }))),
  /** CONTRACT §14: looks the TXT record up; the domain, now verified, or a 422 on `name`. */
  verify: scoped("domains:write", "admin")
    .input(IdInput)
    .mutation(async ({ ctx, input }) => ctx.json.domainDetail(await ctx.domains.verify({ ctx: ctx.core, id: input.id }))),
  /** CONTRACT §21: visits to the domain that reached no link (`stats:read`). */
  visits: domainVisitsProcedure,
});
export const spacesRouter = crudRouter(resources.spaces);
export const pixelsRouter = crudRouter(resources.pixels);
