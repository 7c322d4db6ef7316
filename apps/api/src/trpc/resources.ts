import * as core from "@shortener/core";
import { CreateDomainInput, CreateLinkInput, CreatePixelInput, CreateSpaceInput, IdInput, ListDomainsInput, ListLinksInput, ListPixelsInput, ListSpacesInput, UpdateDomainInput, UpdateLinkInput, UpdatePixelInput, UpdateSpaceInput } from "@shortener/core";
import { procedure, router } from "./init.ts";
import { toDeletedJson, toListJson } from "./lists.ts";

/*
 * CONTRACT §11: the same core verbs and the very zod schemas REST validates with; the same JSON as
 * REST's `data`. `update` takes `{ id, ...fields }`: the id schema and the update schema merged by
 * tRPC, so field errors have REST's names (`url`, not `data.url`).
 */

export const linksRouter = router({
  list: procedure.input(ListLinksInput).query(async ({ ctx, input }) => toListJson(await core.listLinks({ ctx: ctx.core, input }), ctx.json.link)),
  get: procedure.input(IdInput).query(async ({ ctx, input }) => ctx.json.link(await core.getLink({ ctx: ctx.core, id: input.id }))),
  create: procedure.input(CreateLinkInput).mutation(async ({ ctx, input }) => ctx.json.link(await core.createLink({ ctx: ctx.core, input }))),
  update: procedure
    .input(IdInput)
    .input(UpdateLinkInput)
    .mutation(async ({ ctx, input }) => ctx.json.link(await core.updateLink({ ctx: ctx.core, id: input.id, input }))),
  delete: procedure.input(IdInput).mutation(async ({ ctx, input }) => toDeletedJson(await core.deleteLink({ ctx: ctx.core, id: input.id }), "link")),
});

export const domainsRouter = router({
  list: procedure.input(ListDomainsInput).query(async ({ ctx, input }) => toListJson(await core.listDomains({ ctx: ctx.core, input }), ctx.json.domain)),
  get: procedure.input(IdInput).query(async ({ ctx, input }) => ctx.json.domain(await core.getDomain({ ctx: ctx.core, id: input.id }))),
  create: procedure.input(CreateDomainInput).mutation(async ({ ctx, input }) => ctx.json.domain(await core.createDomain({ ctx: ctx.core, input }))),
  update: procedure
    .input(IdInput)
    .input(UpdateDomainInput)
    .mutation(async ({ ctx, input }) => ctx.json.domain(await core.updateDomain({ ctx: ctx.core, id: input.id, input }))),
  delete: procedure.input(IdInput).mutation(async ({ ctx, input }) => toDeletedJson(await core.deleteDomain({ ctx: ctx.core, id: input.id }), "domain")),
});

export const spacesRouter = router({
  list: procedure.input(ListSpacesInput).query(async ({ ctx, input }) => toListJson(await core.listSpaces({ ctx: ctx.core, input }), ctx.json.space)),
  get: procedure.input(IdInput).query(async ({ ctx, input }) => ctx.json.space(await core.getSpace({ ctx: ctx.core, id: input.id }))),
  create: procedure.input(CreateSpaceInput).mutation(async ({ ctx, input }) => ctx.json.space(await core.createSpace({ ctx: ctx.core, input }))),
  update: procedure
    .input(IdInput)
    .input(UpdateSpaceInput)
    .mutation(async ({ ctx, input }) => ctx.json.space(await core.updateSpace({ ctx: ctx.core, id: input.id, input }))),
  delete: procedure.input(IdInput).mutation(async ({ ctx, input }) => toDeletedJson(await core.deleteSpace({ ctx: ctx.core, id: input.id }), "space")),
});

export const pixelsRouter = router({
  list: procedure.input(ListPixelsInput).query(async ({ ctx, input }) => toListJson(await core.listPixels({ ctx: ctx.core, input }), ctx.json.pixel)),
  get: procedure.input(IdInput).query(async ({ ctx, input }) => ctx.json.pixel(await core.getPixel({ ctx: ctx.core, id: input.id }))),
  create: procedure.input(CreatePixelInput).mutation(async ({ ctx, input }) => ctx.json.pixel(await core.createPixel({ ctx: ctx.core, input }))),
  update: procedure
    .input(IdInput)
    .input(UpdatePixelInput)
    .mutation(async ({ ctx, input }) => ctx.json.pixel(await core.updatePixel({ ctx: ctx.core, id: input.id, input }))),
  delete: procedure.input(IdInput).mutation(async ({ ctx, input }) => toDeletedJson(await core.deletePixel({ ctx: ctx.core, id: input.id }), "pixel")),
});
