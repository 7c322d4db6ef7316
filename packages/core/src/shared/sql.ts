/** Escapes LIKE wildcards so a search for `50%_off` matches those characters literally. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * A Postgres array literal, passed as one text parameter: both drivers send it the same way, and the
 * query casts it. Elements are quoted and escaped; null stays NULL.
 */
export function pgArray(values: ReadonlyArray<string | number | null>): string {
  const items = values.map((v) => (v === null ? "NULL" : typeof v === "number" ? String(v) : `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`));
  return `{${items.join(",")}}`;
}
