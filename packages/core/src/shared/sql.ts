/** Escapes LIKE wildcards so a search for `50%_off` matches those characters literally. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}
