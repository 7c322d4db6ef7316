import * as core from "@shortener/core";
import { BulkDeleteLinksInput, BulkUpdateLinksInput, EXPORT_COLUMNS, ExportLinksPageInput, IdInput, QrOptionsInput } from "@shortener/core";
import { assertExportIncludeAllowed } from "../http/auth.ts";
import { toDeletedJson } from "./lists.ts";
import { router, scoped } from "./init.ts";

/**
 * CONTRACT §17 on tRPC, merged into the `links` router: `links.qr` answers the image as text, SVG as
 * itself and PNG in base64, with the `short_url` it encodes.
 */
/** CONTRACT §25: `tags.list`, the workspace's tags with their counts, as REST's `GET /api/v1/tags` answers them. */
export const tagsRouter = router({
  list: scoped("links:read", "viewer").query(async ({ ctx }) => {
    const tags = await core.listTags({ ctx: ctx.core });
    return { data: tags.map((t) => ({ name: t.name, count: t.count })) };
  }),
});

export const linkToolsRouter = router({
  /** CONTRACT §17: up to 100 of the caller's links deleted, all or nothing; `{ data: [{ id, object, deleted }] }`. */
  bulkDelete: scoped("links:write", "editor")
    .input(BulkDeleteLinksInput)
    .mutation(async ({ ctx, input }) => {
      const deleted = await core.bulkDeleteLinks({ ctx: ctx.core, input });
      return { data: deleted.map((row) => toDeletedJson(row, "link")) };
    }),
  /** CONTRACT §17: the same update fields on up to 100 links, all or nothing; `{ data: [link…] }` in the order sent. */
  bulkUpdate: scoped("links:write", "editor")
    .input(BulkUpdateLinksInput)
    .mutation(async ({ ctx, input }) => {
      const updated = await core.bulkUpdateLinks({ ctx: ctx.core, input });
      return { data: updated.map(ctx.json.link) };
    }),
  qr: scoped("links:read", "viewer")
    .input(IdInput)
    .input(QrOptionsInput)
    .query(async ({ ctx, input }) => {
      const link = await core.getLink({ ctx: ctx.core, id: input.id });
      const shortUrl = ctx.json.shortUrl(link.domain.name, link.alias);
      const image = ctx.qr.get(shortUrl, { format: input.format, size: input.size, margin: input.margin, ecc: input.ecc });
      return {
        short_url: shortUrl,
        format: image.format,
        content_type: image.contentType,
        /** The SVG document, or the PNG's bytes in base64. */
        data: image.format === "svg" ? image.body.toString("utf8") : image.body.toString("base64"),
      };
    }),
  /**
   * One page of the export (REST streams the whole file as CSV): rows with the import's columns, each
   * cell's value (JSON needs no formula neutralisation: that is the CSV writer's), and the cursor of
   * the next page (null after the last). The password hashes only with `include: "secrets"`, for a key
   * with `links:write` (FORBIDDEN otherwise); `secrets` says whether they are in.
   */
  export: scoped("links:read", "editor")
    .input(ExportLinksPageInput)
    .query(async ({ ctx, input }) => {
      assertExportIncludeAllowed(ctx.scopes, input.include);
      const page = await core.exportLinksPage({ ctx: ctx.core, input });
      const secrets: "included" | "withheld" = input.include === "secrets" ? "included" : "withheld";
      return { columns: EXPORT_COLUMNS, data: page.rows, next_cursor: page.nextCursor, secrets };
    }),
});
