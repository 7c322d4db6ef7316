import { ValidationError, type FieldErrors } from "@shortener/core";

/** Fields named in the 422 of one request: enough to act on, and bounded. */
const MAX_REPORTED = 20;

/**
 * CONTRACT §15: U+0000 in any text field, query or search is a 422 naming the field, never a 500
 * (Postgres refuses NUL in text). Walks decoded values (a form, JSON, a query object, tRPC input)
 * without recursion and names each string holding a NUL by its path, nested keys joined by dots as in
 * every 422 (`country.0.value`); a NUL in a key names that key. Throws the ValidationError, or returns.
 */
export function rejectNul(sources: Array<[prefix: string, value: unknown]>): void {
  // No prototype: a field named `__proto__`, `constructor` or `toString` is a field like any other.
  const errors = Object.create(null) as FieldErrors;
  let reported = 0;
  const stack: Array<[string, unknown]> = sources.map(([prefix, value]) => [prefix, value]);
  while (stack.length && reported < MAX_REPORTED) {
    const [path, value] = stack.pop() as [string, unknown];
    if (typeof value === "string") {
      if (value.includes("\u0000")) {
        const field = path || "_";
        (errors[field] ??= []).push(`The ${field} field must not contain a NUL character (U+0000).`);
        reported++;
      }
    } else if (isPlain(value)) {
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        const name = path ? `${path}.${key.replaceAll("\u0000", "\uFFFD")}` : key.replaceAll("\u0000", "\uFFFD");
        if (key.includes("\u0000")) {
          (errors[name] ??= []).push(`The field name ${JSON.stringify(name)} must not contain a NUL character (U+0000).`);
          reported++;
        }
        stack.push([name, item]);
      }
    }
  }
  if (reported) throw new ValidationError(errors);
}

/**
 * Decoded data only: arrays and plain objects, including the null-prototype kind query parsers make
 * (a stream or another class instance is not walked).
 */
function isPlain(value: unknown): value is Record<string, unknown> {
  if (!value || typeof value !== "object") return false;
  if (Array.isArray(value)) return true;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null || Object.getPrototypeOf(proto) === null;
}
