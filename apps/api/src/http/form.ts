import qs from "qs";
import type { z } from "zod";
import { coerceFormValues } from "@shortener/core";
import { HttpError } from "../errors.ts";

/** Limits that keep a hostile form from costing more than a normal one. */
const FORM_LIMITS = { depth: 3, arrayLimit: 1_000, parameterLimit: 5_000 } as const;

/**
 * Decodes an `application/x-www-form-urlencoded` body with bracket notation: `a[]` and repeated keys
 * become arrays, `a[0][b]` nested objects. Prototype keys are dropped; lists are capped at 1,000 entries here and at what each field allows by its schema. `""` becomes `null`, which the
 * schemas read as "clear this field" on update and as "not sent" on create (docs/adr/0004-forms.md).
 */
export function decodeForm(body: string): Record<string, unknown> {
  let parsed: Record<string, unknown>;
  try {
    parsed = qs.parse(body, {
      ...FORM_LIMITS,
      allowPrototypes: false,
      plainObjects: true,
      allowDots: false,
      comma: false,
      duplicates: "combine",
      strictDepth: true,
      throwOnLimitExceeded: true,
      charset: "utf-8",
    }) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof RangeError) {
      throw new HttpError(
        400,
        "bad_request",
        `The form is too large or too deeply nested (at most ${FORM_LIMITS.parameterLimit} fields, ${FORM_LIMITS.arrayLimit} entries a list, ${FORM_LIMITS.depth} levels).`,
      );
    }
    throw error;
  }
  return normalizeBody(parsed) as Record<string, unknown>;
}

/** `""` → `null` everywhere, and prototype keys dropped (JSON bodies go through this too). */
export function normalizeBody(value: unknown): unknown {
  if (value === "") return null;
  if (Array.isArray(value)) return value.map(normalizeBody);
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    const out: Record<string, unknown> = Object.create(null);
    for (const [k, v] of entries) {
      if (k === "__proto__" || k === "constructor" || k === "prototype") continue;
      out[k] = normalizeBody(v);
    }
    return { ...out };
  }
  return value;
}

/**
 * What a form body, a JSON body or a query string says, as the input `schema` takes it: decimal strings
 * become numbers where the schema takes numbers, and `pixel_ids=1,2` an array (core's
 * `coerceFormValues`). The shared schemas stay strictly typed for tRPC; REST accepts form strings.
 */
export function formInput(schema: z.ZodType, value: unknown): never {
  return coerceFormValues(schema, value ?? {}) as never;
}
