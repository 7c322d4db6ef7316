import { addLoopErrors } from "../domains/served.ts";
import type { FieldErrors } from "../errors.ts";
import { coerceFormValues } from "../validation/coerce-form-values.ts";
import { CreateLinkInput, CreateLinkShape } from "../links/schemas.ts";
import { draftNewLink, type NewLink } from "../links/draft-link.ts";
import { checkOwnership } from "../links/ownership.ts";
import { destinations } from "../links/validate-link.ts";
import { isPasswordHash } from "../secrets/hash.ts";
import { normalizeDomainName } from "../urls/url.ts";
import { addError, createFieldsParser } from "../validation/fields.ts";
import type { RowError } from "./import-job.ts";
import { ownedInScope, type ImportScope } from "./import-scope.ts";
import { MIGRATION_COLUMNS, readRowExtensions, SOURCE_DOMAIN_COLUMN } from "./import-extensions.ts";
import { IMPORT_COLUMNS } from "./schemas.ts";

/** A row's cells by column name. */
export type ImportFields = Readonly<Record<string, string | undefined>>;

/**
 * One data row of an import file, as the adapter read it: the file line it starts on, and its cells by
 * column name; or, for a row the adapter could not read (a quote never closed, too long), why not.
 */
export type ImportRow = { line: number; fields: ImportFields; error?: undefined } | { line: number; fields?: undefined; error: string; alias?: string };

/**
 * A row that passed every check, ready to be written once its passwords are hashed (`hashRowSecrets`).
 * Targeting, the creation date and the clicks come from the migration columns (`MIGRATION_COLUMNS`);
 * a plain §12 file has none of them.
 */
export type CheckedRow = NewLink & {
  line: number;
  passwordHash: string | null;
  privacyPasswordHash: string | null;
  /** Null: the batch's time. */
  createdAt: Date | null;
  /** Clicks carried over from another service (0: none). */
  importedClicks: number;
  importedClicksByDay: Array<[day: string, count: number]>;
};

export type RowCheck = { ok: true; row: CheckedRow } | { ok: false; errors: RowError[] };

/** The text columns whose bytes are checked: the import's own, and the domain a translated export names. */
const CHECKED_TEXT_COLUMNS: readonly string[] = [...IMPORT_COLUMNS, ...MIGRATION_COLUMNS, SOURCE_DOMAIN_COLUMN];

/** Bytes that were not UTF-8 decode to U+FFFD; Postgres text cannot hold NUL. Either makes the row an error. */
const UNDECODABLE = /[\u0000\ufffd]/;

const parseLinkFields = createFieldsParser(CreateLinkShape);

/**
 * The schema's input for a row: `""` is "not sent" (as in forms), `pixel_ids` and `tags` are `;`-separated, and
 * numbers written as text become numbers where the schema takes them (`coerceFormValues`).
 */
export function toLinkInput(fields: ImportFields): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const column of IMPORT_COLUMNS) {
    const value = fields[column];
    if (value === undefined || value === "" || column === "domain" || column === "password_hash" || column === "privacy_password_hash") continue;
    input[column] =
      column === "pixel_ids"
        ? value
            .split(/[;,]/)
            .map((s) => s.trim())
            .filter(Boolean)
        : column === "tags"
          ? value.split(";").filter((s) => s.trim() !== "")
          : value;
  }
  return coerceFormValues(CreateLinkInput, input) as Record<string, unknown>;
}

/**
 * Checks one row with the same rules as `createLink` (CONTRACT §4, §12): the link schema, the
 * cross-field rules, ownership of domain, space and pixels, and the loop check — against the job's
 * scope, loaded once. Uniqueness of the alias is left to the write, which the unique index decides.
 */
export function checkImportRow(row: ImportRow, scope: ImportScope, now: Date): RowCheck {
  if (row.error !== undefined) {
    const named = reportedAlias(row.alias);
    return { ok: false, errors: [{ line: row.line, field: null, message: row.error, ...(named ? { alias: named } : {}) }] };
  }
  const errors: FieldErrors = {};
  for (const column of CHECKED_TEXT_COLUMNS) {
    const value = row.fields[column];
    if (value !== undefined && UNDECODABLE.test(value)) addError(errors, column, "The value is not valid UTF-8 text.");
  }
  const alias = reportedAlias(row.fields.alias);
  if (Object.keys(errors).length) return { ok: false, errors: toRowErrors(row.line, errors, alias) };

  const extensions = readRowExtensions(row.fields, now, errors);
  const input = { ...toLinkInput(row.fields), ...extensions.targeting };
  const domainName = row.fields.domain ? normalizeDomainName(row.fields.domain) : undefined;
  if (row.fields.domain && domainName === null) addError(errors, "domain", "The domain is not a valid domain name.");
  if (input.domain_id === undefined) {
    if (domainName) {
      const id = scope.domainIds.get(domainName);
      if (id === undefined) addError(errors, "domain", "The selected domain is invalid.");
      else input.domain_id = id;
    } else if (!row.fields.domain) {
      // A translated export's short-URL domain (`source_domain`): that domain when it is one of ours, else the default.
      const sourceName = row.fields[SOURCE_DOMAIN_COLUMN] ? sourceDomainName(row.fields[SOURCE_DOMAIN_COLUMN]) : null;
      const sourceId = sourceName ? scope.domainIds.get(sourceName) : undefined;
      if (sourceId !== undefined) input.domain_id = sourceId;
      else if (scope.defaultDomainId !== null) input.domain_id = scope.defaultDomainId;
      else if (row.fields[SOURCE_DOMAIN_COLUMN])
        addError(errors, "domain", `The short URL's domain${sourceName ? ` ${sourceName}` : ""} is not one of your domains, and the import has no default domain.`);
      else addError(errors, "domain", "The row names no domain (domain or domain_id) and the import has no default domain.");
    }
  }

  const { values: v, errors: fieldErrors } = parseLinkFields(input);
  for (const [field, messages] of Object.entries(fieldErrors)) {
    // A missing or unknown domain is already reported once, as `domain`.
    if (field === "domain_id" && errors.domain) continue;
    for (const message of messages) addError(errors, field, message);
  }
  if (v.domain_id !== undefined && row.fields.domain_id && domainName && scope.domainNames.get(v.domain_id) !== domainName) {
    addError(errors, "domain", "The domain and the domain id name different domains.");
  }
  const passwordHash = storedHash(row.fields, "password", errors);
  const privacyPasswordHash = storedHash(row.fields, "privacy_password", errors);
  const draft = draftNewLink(v, now, errors, { hasPrivacyPasswordHash: privacyPasswordHash !== null });
  checkOwnership({ domainId: v.domain_id, spaceId: v.space_id, pixelIds: v.pixel_ids }, ownedInScope(scope), errors);
  addLoopErrors(destinations(v), scope.servedNames, errors);
  if (Object.keys(errors).length) return { ok: false, errors: toRowErrors(row.line, errors, alias) };

  return {
    ok: true,
    row: {
      ...draft,
      line: row.line,
      passwordHash,
      privacyPasswordHash,
      createdAt: extensions.createdAt,
      importedClicks: extensions.clicks,
      importedClicksByDay: extensions.clicksByDay,
    },
  };
}

/**
 * `normalizeDomainName` of a translated export's short-URL domain, remembered for the last value seen:
 * an export names one domain (bit.ly, its own branded one) on row after row.
 */
let lastSourceDomain: { raw: string; name: string | null } | undefined;
function sourceDomainName(raw: string): string | null {
  if (lastSourceDomain?.raw !== raw) lastSourceDomain = { raw, name: normalizeDomainName(raw) };
  return lastSourceDomain.name;
}

/**
 * `password_hash` / `privacy_password_hash`: a hash as an export writes it, stored as it is (its row then
 * has no clear password to hash). Either the password or its hash, not both; anything but our own hash
 * format is refused. Taking a hash grants nothing a password would not: it only sets what opens the link.
 */
function storedHash(fields: ImportFields, column: "password" | "privacy_password", errors: FieldErrors): string | null {
  const value = fields[`${column}_hash`];
  if (value === undefined || value === "") return null;
  if (fields[column]) {
    addError(errors, `${column}_hash`, `Send either the ${column.replace("_", " ")} or its hash, not both.`);
    return null;
  }
  if (!isPasswordHash(value)) {
    addError(errors, `${column}_hash`, `The ${column.replace("_", " ")} hash is not a hash this service wrote.`);
    return null;
  }
  return value;
}

/** A refused row's alias as its error keeps it (a report names it): none when it holds NUL, which text cannot store; cut to 300 characters. */
function reportedAlias(value: string | undefined): string | null {
  if (!value || value.includes("\u0000")) return null;
  return value.slice(0, 300);
}

function toRowErrors(line: number, errors: FieldErrors, alias: string | null): RowError[] {
  return Object.entries(errors).flatMap(([field, messages]) => messages.map((message) => ({ line, field, message, ...(alias ? { alias } : {}) })));
}
