import { z } from "zod";
import { PageParams } from "../lists/pagination.ts";
import { isCalendarDate } from "../stats/schemas.ts";
import { idField, onCreate } from "../validation/fields.ts";

const DATE_TIME = z.iso.datetime({ offset: true });

/** `from` / `to`: a UTC day (`YYYY-MM-DD`) or an ISO-8601 date and time with its offset (`2026-11-22T10:00:00Z`). */
function momentField(label: string) {
  const message = `The ${label} must be a date (YYYY-MM-DD) or an ISO-8601 date and time (2026-11-22T10:00:00Z).`;
  return onCreate(z.string({ error: message }).refine((value) => isCalendarDate(value) || DATE_TIME.safeParse(value).success, { error: message }));
}

/** A word of the log's vocabulary: `link`, `api_key`; an action is two, `link.bulk_updated`. */
function wordsField(label: string, pattern: RegExp, example: string) {
  const message = `The ${label} must be lower-case words joined by _ (e.g. ${example}), at most 64 characters.`;
  return onCreate(z.string({ error: message }).max(64, { error: message }).regex(pattern, { error: message }));
}

/** The filters of the audit log (CONTRACT §24): who, what object, which action, when. */
const AuditFilters = {
  actor: onCreate(idField("actor")),
  object_type: wordsField("object type", /^[a-z][a-z_]*$/, "link"),
  object_id: onCreate(
    z
      .union([z.string(), z.number()], { error: "The object id must be a string or an integer." })
      .transform(String)
      .pipe(z.string().regex(/^[A-Za-z0-9_:.-]{1,64}$/, { error: "The object id must be 1 to 64 letters, digits or - _ : . characters." })),
  ),
  action: wordsField("action", /^[a-z][a-z_]*\.[a-z][a-z_]*$/, "link.updated"),
  from: momentField("from"),
  to: momentField("to"),
};

/** `GET /api/v1/audit` and tRPC `audit.list`: the filters, newest first, a page at a time. */
export const ListAuditInput = z.object({ ...AuditFilters, page: PageParams.page, per_page: PageParams.per_page });
export type ListAuditInput = z.input<typeof ListAuditInput>;

/** `GET /api/v1/audit` with `Accept: text/csv`: every entry the filters match, newest first. */
export const ExportAuditInput = z.object(AuditFilters);
export type ExportAuditInput = z.input<typeof ExportAuditInput>;
