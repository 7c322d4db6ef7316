/** Escapes LIKE wildcards so a search for `50%_off` matches those characters literally. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * A Postgres array literal, passed as one text parameter: both drivers send it the same way, and the
 * query casts it. Elements are quoted and escaped; null stays NULL.
 */
export function pgArray(values: ReadonlyArray<string | number | null>): string {
  let out = "{";
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as string | number | null;
    if (i > 0) out += ",";
    if (v === null) out += "NULL";
    else if (typeof v === "number") out += String(v);
    else out += `"${NEEDS_ESCAPE.test(v) ? v.replace(ESCAPED, "\\$&") : v}"`;
  }
  return `${out}}`;
}

const NEEDS_ESCAPE = /["\\]/;
const ESCAPED = /["\\]/g;
