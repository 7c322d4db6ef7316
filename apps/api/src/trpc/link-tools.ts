import * as core from "@shortener/core";
import { EXPORT_COLUMNS, ExportLinksPageInput, IdInput, QrOptionsInput } from "@shortener/core";
import { procedure, router } from "./init.ts";

/**
 * CONTRACT §17 on tRPC, merged into the `links` router: `links.qr` answers the image as text, SVG as
 * itself and PNG in base64, with the `short_url` it encodes.
 */
export const linkToolsRouter = router({
  qr: procedure
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
   * cell as the CSV has it, and the cursor of the next page (null after the last).
   */
  export: procedure.input(ExportLinksPageInput).query(async ({ ctx, input }) => {
    const page = await core.exportLinksPage({ ctx: ctx.core, input });
    return { columns: EXPORT_COLUMNS, data: page.rows, next_cursor: page.nextCursor };
  }),
});
