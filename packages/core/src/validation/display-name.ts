import { textField } from "./fields.ts";

/**
 * Characters a displayed name may not hold (CONTRACT §15): control characters (C0 including tab and
 * newline, DEL, C1), the Unicode line and paragraph separators (U+2028, U+2029), and the bidirectional
 * embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) that reorder what follows them, so
 * that `\u202Egnp.exe` cannot show as `exe.png`. The bidirectional marks (U+200E LRM, U+200F RLM,
 * U+061C ALM) stay allowed: they reorder nothing past their neighbours and right-to-left writers need
 * them, as joiners (U+200C, U+200D) are needed by emoji and Indic scripts.
 */
export const UNDISPLAYABLE = /[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;

/**
 * A name people see in lists and pages (API keys, spaces, pixels, users): `textField`'s length rules,
 * and none of the `UNDISPLAYABLE` characters, refused with a 422 naming the field.
 */
export function displayNameField(label: string, min: number, max: number) {
  return textField(label, min, max).refine((name) => !UNDISPLAYABLE.test(name), {
    error: `The ${label} must not contain control characters or bidirectional override characters.`,
  });
}

/**
 * A value the caller sent, quoted for an error message only when it is a short string that displays
 * safely; otherwise `undefined`, and the message names the field without it. No message echoes a long,
 * nested or hostile input back.
 */
export function quotedForMessage(input: unknown): string | undefined {
  return typeof input === "string" && input.length <= 64 && !UNDISPLAYABLE.test(input) ? JSON.stringify(input) : undefined;
}

/** "The event "x" is not one of a, b." when the input quotes safely, else "Each event must be one of a, b." */
export function notOneOfMessage(label: string, input: unknown, values: readonly string[]): string {
  const quoted = quotedForMessage(input);
  return quoted ? `The ${label} ${quoted} is not one of ${values.join(", ")}.` : `Each ${label} must be one of ${values.join(", ")}.`;
}
