import { z } from "zod";
import { PageParams } from "../lists/pagination.ts";
import { displayNameField, notOneOfMessage } from "../validation/display-name.ts";
import { API_KEY_SCOPES, type Scope } from "./scopes.ts";

/** Most live named keys one user may hold (CONTRACT §17); deleting one frees its place. */
export const MAX_NAMED_KEYS_PER_USER = 50;
export const KEY_NAME_MAX = 100;

const SCOPES_MESSAGE = `The scopes must be a non-empty list of ${API_KEY_SCOPES.join(", ")}.`;

/** Forms may send the scopes as one string, separated by commas or spaces (`links:read links:write`). */
const splitScopes = (v: unknown) =>
  typeof v === "string"
    ? v
        .split(/[\s,]+/)
        .map((s) => s.trim())
        .filter(Boolean)
    : v;

/**
 * `scopes[]=links:read&scopes[]=stats:read`, `scopes=links:read stats:read` (or commas) or a JSON array:
 * known scopes, answered in the contract's order without repeats. The preprocessor's parameter type is
 * what typed callers (tRPC) send; forms send strings, checked all the same.
 */
const scopes = z.preprocess(
  (v: Scope[]) => splitScopes(v ?? []),
  z
    .array(z.enum(API_KEY_SCOPES, { error: (issue) => notOneOfMessage("scope", issue.input, API_KEY_SCOPES) }), { error: SCOPES_MESSAGE })
    .min(1, { error: SCOPES_MESSAGE })
    .max(API_KEY_SCOPES.length * 4, { error: SCOPES_MESSAGE })
    .transform((list) => API_KEY_SCOPES.filter((scope) => list.includes(scope))),
);

/** `YYYY-MM-DD` names a day that exists (Date would roll 2027-02-30 over into March). */
function isCalendarDate(ymd: string): boolean {
  const [y = 0, m = 0, d = 0] = ymd.split("-").map(Number);
  const day = new Date(Date.UTC(y, m - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
}

export const CreateApiKeyInput = z.object({
  /** 1–100 characters after trimming; absent or blank: "required". */
  name: z.preprocess((v: string) => (typeof v === "string" ? v.trim() : ((v as string | null | undefined) ?? "")), displayNameField("name", 1, KEY_NAME_MAX)),
  scopes,
  /**
   * When the key stops working: an ISO-8601 moment (`2027-01-01T00:00:00Z`) or a date (midnight UTC),
   * in the future (checked by the verb, against its clock). Absent: the key does not expire.
   */
  expires_at: z
    .string({ error: "The expires at must be an ISO-8601 date or date-time." })
    .max(64, { error: "The expires at must be an ISO-8601 date or date-time." })
    .nullish()
    .transform((v, issue) => {
      if (v === null || v === undefined) return undefined;
      const isIso = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/.test(v);
      // A date is midnight UTC; a time without an offset is UTC too (CONTRACT §1: timestamps are UTC).
      const text = /^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : /(?:Z|[+-]\d{2}:?\d{2})$/.test(v) ? v : `${v}Z`;
      const date = new Date(text.replace(" ", "T"));
      if (!isIso || Number.isNaN(date.getTime()) || !isCalendarDate(v.slice(0, 10))) {
        issue.addIssue({ code: "custom", message: "The expires at must be an ISO-8601 date or date-time." });
        return z.NEVER;
      }
      // An ISO string again (not a Date), so the verb can parse what tRPC already parsed.
      return date.toISOString();
    }),
});
export type CreateApiKeyInput = z.input<typeof CreateApiKeyInput>;

export const ListApiKeysInput = z.object({ page: PageParams.page, per_page: PageParams.per_page, sort: PageParams.sort });
export type ListApiKeysInput = z.input<typeof ListApiKeysInput>;
