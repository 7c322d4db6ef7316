import { z } from "zod";
import { ValidationError, type FieldErrors } from "../errors.ts";

/** Zod issues → phpShort's `{ field: [sentence] }`; nested paths join with dots (`country.0.key`). */
export function toFieldErrors(error: z.ZodError): FieldErrors {
  const fields: FieldErrors = {};
  for (const issue of error.issues) {
    const field = issue.path.length ? issue.path.map(String).join(".") : "_";
    (fields[field] ??= []).push(issue.message);
  }
  return fields;
}

/** Parses with `schema`; a failure becomes a ValidationError carrying every failing field at once. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ValidationError(toFieldErrors(result.error));
  return result.data;
}

/** Integer from a number or a decimal string (forms send strings). */
export function intField(label: string, options: { min?: number; max?: number } = {}) {
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = options;
  return z.preprocess(
    (v) => (typeof v === "string" && /^-?\d+$/.test(v.trim()) ? Number(v.trim()) : v),
    z
      .number({ error: `The ${label} must be an integer.` })
      .int({ error: `The ${label} must be an integer.` })
      .min(min, { error: `The ${label} must be at least ${min}.` })
      .max(max, { error: `The ${label} must not be greater than ${max}.` }),
  );
}

/** A positive integer id, as forms and JSON send it. */
export function idField(label: string) {
  return intField(label, { min: 1, max: 2_147_483_647 });
}

/** One of a fixed list of integers (forms send them as strings). */
export function intEnumField<const T extends readonly number[]>(label: string, values: T) {
  return z.preprocess(
    (v) => (typeof v === "string" && /^\d+$/.test(v.trim()) ? Number(v.trim()) : v),
    z.union(values.map((n) => z.literal(n)) as unknown as [z.ZodLiteral<T[number]>], {
      error: `The ${label} must be one of ${values.join(", ")}.`,
    }),
  ) as unknown as z.ZodType<T[number], unknown>;
}

export function stringEnumField<const T extends readonly [string, ...string[]]>(label: string, values: T) {
  return z.enum(values, { error: `The ${label} must be one of ${values.join(", ")}.` });
}

export function textField(label: string, min: number, max: number) {
  return z
    .string({ error: `The ${label} must be a string.` })
    .min(min, { error: min === 1 ? `The ${label} field is required.` : `The ${label} must be at least ${min} characters.` })
    .max(max, { error: `The ${label} must not be greater than ${max} characters.` });
}
