import { z } from "zod";
import { PageParams } from "../lists/pagination.ts";
import { defaulted, idField, intField, onCreate, stringEnumField, textField } from "../validation/fields.ts";
import { IMPORT_FORMATS } from "./formats/names.ts";

export { IMPORT_STATUSES, type ImportStatus } from "@shortener/vocabulary";

/**
 * The columns of an import file (CONTRACT §12); any other column is ignored. An export (§17) has exactly
 * these. `password_hash` and `privacy_password_hash` carry a stored hash instead of a password, so an
 * export imports again with its passwords set (docs/adr/0026-link-exports.md).
 */
export const IMPORT_COLUMNS = [
  "url",
  "alias",
  "domain",
  "domain_id",
  "title",
  "password",
  "space_id",
  "pixel_ids",
  "tags",
  "disabled",
  "privacy",
  "privacy_password",
  "expiration_url",
  "expiration_date",
  "expiration_time",
  "expiration_clicks",
  "og_title",
  "og_description",
  "og_image",
  "password_hash",
  "privacy_password_hash",
] as const;
export type ImportColumn = (typeof IMPORT_COLUMNS)[number];

export const CreateImportShape = {
  /** The CSV text, kept until the job finishes so a restarted worker can resume. Absent when the caller streams the file itself (the operator CLI). */
  source: onCreate(z.string({ error: "The file must be text." })),
  /** The number of data rows, counted by the adapter that received the file (core does not read CSV). */
  total_rows: defaulted(intField("total rows", { min: 0, max: 2_147_483_647 }), 0),
  /** How the file is read (CONTRACT §23): `csv` (§12), or another service's own export. */
  format: defaulted(stringEnumField("format", IMPORT_FORMATS), "csv"),
  /** The domain of rows that name none. */
  domain_id: onCreate(idField("domain id")),
  idempotency_key: onCreate(textField("idempotency key", 1, 255).regex(/^[\x21-\x7e]+$/, { error: "The idempotency key may only contain printable ASCII characters without spaces." })),
};
export const CreateImportInput = z.object(CreateImportShape);
export type CreateImportInput = z.input<typeof CreateImportInput>;

export const ListImportsInput = z.object({ ...PageParams });
export type ListImportsInput = z.input<typeof ListImportsInput>;
