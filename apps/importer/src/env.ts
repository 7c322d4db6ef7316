import { z } from "zod";

/**
 * The importer's settings, read once from the environment (the same names and defaults as the
 * launcher's, CONTRACT §13): the operator CLI opens the database the way `pnpm start` does.
 */
export const ImporterEnv = z.object({
  DATA_DIR: z.string().min(1).default("./.data"),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\/\S+$/, { error: "must be a postgres:// or postgresql:// URL" }).optional(),
  IMPORT_BATCH_SIZE: z
    .string()
    .regex(/^\d+$/, { error: "must be an integer from 1 to 50000" })
    .transform(Number)
    .pipe(z.number().min(1, { error: "must be an integer from 1 to 50000" }).max(50_000, { error: "must be an integer from 1 to 50000" }))
    .optional(),
});
export type ImporterEnv = z.output<typeof ImporterEnv>;

/** Parses the environment; an empty value counts as unset. Throws one line naming the first bad variable. */
export function parseImporterEnv(source: Record<string, string | undefined>): ImporterEnv {
  const input: Record<string, string> = {};
  for (const key of Object.keys(ImporterEnv.shape)) {
    const value = source[key];
    if (value !== undefined && value !== "") input[key] = value;
  }
  const result = ImporterEnv.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const name = String(issue?.path[0] ?? "environment");
  throw new Error(`Invalid setting ${name}: ${issue?.message ?? "malformed"} (got ${JSON.stringify(input[name] ?? "")}).`);
}
