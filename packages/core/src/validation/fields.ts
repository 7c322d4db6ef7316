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

/**
 * An integer (a JSON number). Forms and CSV send strings: their adapters turn decimal strings into
 * numbers first (`coerceFormValues`), so a typed caller sees `number` as the input type.
 * `isRequired`: a missing value says "The … field is required." instead of "must be an integer".
 */
export function intField(label: string, options: { min?: number; max?: number; isRequired?: boolean } = {}) {
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = options;
  const notInteger = `The ${label} must be an integer.`;
  return z
    .number({ error: (issue) => (options.isRequired && (issue.input === undefined || issue.input === null) ? `The ${label} field is required.` : notInteger) })
    .int({ error: notInteger })
    .min(min, { error: `The ${label} must be at least ${min}.` })
    .max(max, { error: `The ${label} must not be greater than ${max}.` });
}

/** A positive integer id. */
export function idField(label: string, options: { isRequired?: boolean } = {}) {
  return intField(label, { min: 1, max: 2_147_483_647, ...options });
}

/** One of a fixed list of integers. */
export function intEnumField<const T extends readonly number[]>(label: string, values: T) {
  return z.union(values.map((n) => z.literal(n)) as unknown as [z.ZodLiteral<T[number]>], {
    error: `The ${label} must be one of ${values.join(", ")}.`,
  }) as unknown as z.ZodType<T[number], T[number]>;
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

/** `value` when the field is absent or empty; otherwise `schema` decides. */
export function defaulted<S extends z.ZodType>(schema: S, value: z.output<S>) {
  return schema.nullish().transform((v) => (v ?? value) as z.output<S>);
}

/** On create, `null` (an empty form value) means "not sent". */
export function onCreate<S extends z.ZodType>(schema: S) {
  return schema.nullish().transform((v) => (v === null ? undefined : v) as z.output<S> | undefined);
}

/** On update, `undefined` means "leave as is" and `null` (an empty form value) means "clear it". */
export function onUpdate<S extends z.ZodType>(schema: S) {
  return schema.nullable().optional();
}

/** A field that is never accepted (e.g. `domain_id` on update): any value sent is a 422. */
export function refused(message: string) {
  return z.undefined({ error: message }).optional();
}

/** One field of a shape: its value into `values`, or its messages into `errors` under `key` (nested paths as `key.0.sub`). */
function parseField(key: string, schema: z.ZodType, value: unknown, values: Record<string, unknown>, errors: FieldErrors): void {
  const result = schema.safeParse(value);
  if (result.success) {
    if (result.data !== undefined) values[key] = result.data;
    return;
  }
  for (const [field, messages] of Object.entries(toFieldErrors(result.error))) {
    const name = field === "_" ? key : `${key}.${field}`;
    (errors[name] ??= []).push(...messages);
  }
}

/**
 * Parses each field of `shape` on its own, so that every failing field is reported together and the
 * fields that did parse are available for the checks that need the database.
 */
export function parseFields<T extends z.ZodRawShape>(shape: T, input: unknown): { values: { [K in keyof T]?: z.output<T[K]> }; errors: FieldErrors } {
  const source = input && typeof input === "object" && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  const values: Record<string, unknown> = {};
  const errors: FieldErrors = {};
  for (const [key, schema] of Object.entries(shape)) {
    parseField(key, schema as z.ZodType, Object.hasOwn(source, key) ? source[key] : undefined, values, errors);
  }
  return { values: values as { [K in keyof T]?: z.output<T[K]> }, errors };
}

export function addError(errors: FieldErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

export function throwIfErrors(errors: FieldErrors): void {
  if (Object.keys(errors).length) throw new ValidationError(errors);
}

/**
 * `parseFields` for many inputs of one shape (the importer's rows, the API's creates): the outcome of a
 * field that is absent is the same every time, so it is computed once, and only the fields present are
 * parsed. Same values and errors as `parseFields` (a create sends a few of its 28 fields).
 */
export function createFieldsParser<T extends z.ZodRawShape>(shape: T): (input: unknown) => { values: { [K in keyof T]?: z.output<T[K]> }; errors: FieldErrors } {
  const entries = Object.entries(shape).map(([key, schema]) => {
    const absent = parseFields({ [key]: schema } as z.ZodRawShape, {});
    return { key, schema: schema as z.ZodType, absent };
  });
  return (input) => {
    const source = input && typeof input === "object" && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
    const values: Record<string, unknown> = {};
    const errors: FieldErrors = {};
    for (const { key, schema, absent } of entries) {
      const value = Object.hasOwn(source, key) ? source[key] : undefined;
      if (value === undefined) {
        if (Object.hasOwn(absent.values, key)) values[key] = (absent.values as Record<string, unknown>)[key];
        for (const [field, messages] of Object.entries(absent.errors)) (errors[field] ??= []).push(...messages);
        continue;
      }
      parseField(key, schema, value, values, errors);
    }
    return { values: values as { [K in keyof T]?: z.output<T[K]> }, errors };
  };
}
