import type { z } from "zod";

/** Settings whose values are secrets: a bad one is named, never echoed (the start line lands in logs). */
const SECRET_SETTINGS: ReadonlySet<string> = new Set(["SECRET", "ADMIN_API_KEY", "OIDC_CLIENT_SECRET"]);

/**
 * Reads the settings `schema` names from `source` (the environment): an empty value counts as unset.
 * A bad value throws one line naming the variable, `Invalid setting PORT: must be … (got "abc").`,
 * which the entry points print as is, without a stack; a secret's value is not repeated, only its length.
 */
export function parseSettings<S extends z.ZodObject>(schema: S, source: Record<string, string | undefined>): z.output<S> {
  const input: Record<string, string> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = source[key];
    if (value !== undefined && value !== "") input[key] = value;
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const name = String(issue?.path[0] ?? "environment");
  const got = SECRET_SETTINGS.has(name) ? `${input[name]?.length ?? 0} characters, not shown` : JSON.stringify(input[name] ?? "");
  throw new SettingsError(`Invalid setting ${name}: ${issue?.message ?? "malformed"} (got ${got}).`);
}

/** A start that cannot go on because of a setting: its message is one line naming the variable. */
export class SettingsError extends Error {
  override name = "SettingsError";
}
