/**
 * Errors as they may be logged (CONTRACT §15: no log line holds a secret, a hash or a query's bound
 * parameters). Database errors carry the values a query was given: drizzle's `DrizzleQueryError` puts
 * them in its message (`Failed query: … params: …`) and in `params`; postgres.js keeps them in
 * `parameters` and `args`; Postgres repeats a value in its `detail` (`Key (alias)=(…)`) and in some
 * messages (`invalid input syntax for type integer: "…"`). This keeps the type, the SQLSTATE code, the
 * SQL text (placeholders only), the names of the table, column and constraint, the stack and the cause,
 * and drops or blanks everything that can hold a value.
 */

/** Fields copied when they are strings or numbers: names and codes, never values. */
const SAFE_FIELDS = [
  "code",
  "errno",
  "syscall",
  "severity",
  "routine",
  "statusCode",
  "schema",
  "schema_name",
  "table",
  "table_name",
  "column",
  "column_name",
  "constraint",
  "constraint_name",
  "dataType",
  "data_type",
] as const;

/** `"…"` after a colon: the quoted value Postgres appends to some messages. */
const QUOTED_VALUE = /: "(?:[^"\\]|\\.|"")*"/g;

export type LoggableError = { type: string; message: string; stack?: string; query?: string; cause?: LoggableError | string } & Record<string, unknown>;

function scrub(message: string): string {
  const paramsAt = message.indexOf("\nparams:");
  const withoutParams = paramsAt === -1 ? message : message.slice(0, paramsAt);
  return withoutParams.replace(QUOTED_VALUE, ': "[redacted]"');
}

/**
 * An error (or anything thrown) → a plain object that is safe to log; also pino's `err` serializer.
 * Non-errors pass through unchanged (a plain object already made by this function stays as it is).
 */
export function loggableError(error: unknown, depth = 0): unknown {
  if (!(error instanceof Error)) return error;
  const e = error as Error & Record<string, unknown>;
  const message = scrub(String(e.message ?? ""));
  const out: LoggableError = { type: e.constructor?.name || e.name || "Error", message };
  for (const field of SAFE_FIELDS) {
    const value = e[field];
    if (typeof value === "string" || typeof value === "number") out[field] = value;
  }
  if (typeof e.query === "string") out.query = e.query;
  if (typeof e.stack === "string") {
    const original = String(e.message ?? "");
    const stack = original && e.stack.includes(original) ? e.stack.replace(original, message) : e.stack;
    out.stack = scrub(stack);
  }
  if (e.cause !== undefined && depth < 5) {
    const cause = loggableError(e.cause, depth + 1);
    out.cause = cause instanceof Object ? (cause as LoggableError) : "[not an error]";
  }
  return out;
}
