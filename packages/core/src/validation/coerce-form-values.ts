import type { z } from "zod";

/**
 * Form values → the types a schema takes. HTML forms, query strings and CSV cells carry only strings;
 * core's schemas take typed values (an id is a number, `pixel_ids` an array of numbers), so that the
 * typed clients (tRPC) get real input types. The adapters that read strings (REST's form and query
 * decoding, the import rows) run their values through this first: guided by the schema, a decimal
 * string becomes a number where the schema takes a number (or an integer literal), and a
 * comma-separated string or a single number becomes an array where it takes an array of numbers.
 * Anything else is left as it is, for the schema to accept or refuse with its own message.
 */
export function coerceFormValues(schema: z.ZodType, value: unknown): unknown {
  if (value === undefined || value === null) return value;
  const def = defOf(schema);
  if (WRAPPERS.has(def.type)) return coerceFormValues(def.innerType as z.ZodType, value);
  switch (def.type) {
    case "pipe":
      return coerceFormValues(decidingSide(def), value);
    case "lazy":
      return coerceFormValues((def.getter as () => z.ZodType)(), value);
    case "number":
    case "literal":
    case "union":
      return isNumeric(schema) ? toNumber(value) : value;
    case "array": {
      const element = def.element as z.ZodType;
      let list = value;
      if (typeof list === "string" && COMMA_LISTS.has(schema)) list = list.split(",");
      else if (isNumeric(element)) {
        if (typeof list === "string")
          list = list
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean);
        else if (typeof list === "number") list = [list];
      }
      return Array.isArray(list) ? list.map((item) => coerceFormValues(element, item)) : list;
    }
    case "object": {
      if (typeof value !== "object" || Array.isArray(value)) return value;
      const shape = def.shape as Record<string, z.ZodType>;
      const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
      // The fields sent, not every field of the shape: a form sends a few of a create's 28.
      for (const key of Object.keys(out)) if (Object.hasOwn(shape, key)) out[key] = coerceFormValues(shape[key] as z.ZodType, out[key]);
      return out;
    }
    default:
      return value;
  }
}

type Def = { type: string; [key: string]: unknown };

/** Arrays of names a form may also send as one comma-separated string (`tags=a,b`): `commaList` marks them. */
const COMMA_LISTS = new WeakSet<z.ZodType>();

/** Marks an array schema whose form value may be a comma-separated string (each item kept as written, empty ones too). */
export function commaList<S extends z.ZodType>(schema: S): S {
  COMMA_LISTS.add(schema);
  return schema;
}

/** The zod kinds that wrap one inner type (`def.innerType`): what a form value becomes is the inner type's to say. */
const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "nonoptional", "readonly", "catch"]);

/**
 * The side of a pipe that takes the value: `.transform(f)` is a pipe into a transform, so the input side
 * decides; a pipe out of a transform (a preprocess) takes what the transform makes, so the output side does.
 */
function decidingSide(def: Def): z.ZodType {
  const input = def.in as z.ZodType;
  return defOf(input).type === "transform" ? (def.out as z.ZodType) : input;
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

const DECIMAL_INTEGER = /^-?\d+$/;

function toNumber(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const trimmed = value.trim();
  return DECIMAL_INTEGER.test(trimmed) ? Number(trimmed) : value;
}

/** True when the schema takes a number: a number, an integer literal, or a union of those (through wrappers). */
function isNumeric(schema: z.ZodType): boolean {
  const def = defOf(schema);
  if (WRAPPERS.has(def.type)) return isNumeric(def.innerType as z.ZodType);
  switch (def.type) {
    case "number":
      return true;
    case "literal":
      return (def.values as unknown[]).length > 0 && (def.values as unknown[]).every((v) => typeof v === "number");
    case "union":
      return (def.options as z.ZodType[]).every(isNumeric);
    case "pipe":
      return isNumeric(decidingSide(def));
    default:
      return false;
  }
}
