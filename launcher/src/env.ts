import { isIP } from "node:net";
import { z } from "zod";

const int = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, { error: `must be an integer from ${min} to ${max}` })
    .transform(Number)
    .pipe(z.number().min(min, { error: `must be an integer from ${min} to ${max}` }).max(max, { error: `must be an integer from ${min} to ${max}` }));

const trustProxy = z.string().transform((value, ctx) => {
  if (value === "true") return true;
  if (value === "false") return false;
  const list = value.split(",").map((s) => s.trim()).filter(Boolean);
  const bad = list.find((item) => !isIP(item.split("/")[0] ?? "") && !["loopback", "linklocal", "uniquelocal"].includes(item));
  if (bad || !list.length) {
    ctx.addIssue({ code: "custom", message: `must be true, false or a comma list of addresses or CIDR ranges (bad entry "${bad ?? ""}")` });
    return z.NEVER;
  }
  return list;
});

/** Every setting of CONTRACT §13, all optional. */
export const Env = z.object({
  PORT: int(1, 65535).default(3000),
  HOST: z.string().min(1).default("127.0.0.1"),
  DATA_DIR: z.string().min(1).default("./.data"),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\/\S+$/, { error: "must be a postgres:// or postgresql:// URL" }).optional(),
  DATABASE_POOL_SIZE: int(1, 1000).default(10),
  ADMIN_API_KEY: z.string().regex(/^[\x21-\x7e]{32,256}$/, { error: "must be 32 to 256 printable characters without spaces" }).optional(),
  SHORT_URL_SCHEME: z.enum(["http", "https"], { error: "must be http or https" }).optional(),
  REDIRECT_STATUS: z.enum(["301", "302", "307", "308"], { error: "must be 301, 302, 307 or 308" }).default("302").transform(Number) as unknown as z.ZodType<301 | 302 | 307 | 308, string | undefined>,
  RATE_LIMIT_PER_MINUTE: int(1, 1_000_000).default(120),
  TRUST_PROXY: trustProxy.optional(),
  GEO_COUNTRY_HEADER: z.string().regex(/^[A-Za-z0-9-]{1,64}$/, { error: "must be a header name" }).transform((s) => s.toLowerCase()).optional(),
  REDIS_URL: z.string().regex(/^rediss?:\/\/\S+$/, { error: "must be a redis:// or rediss:// URL" }).optional(),
  SECRET: z.string().min(32, { error: "must be at least 32 characters" }).optional(),
  SERVICES: z
    .string()
    .transform((value, ctx) => {
      const list = [...new Set(value.split(",").map((s) => s.trim()).filter(Boolean))];
      const bad = list.find((s) => !["api", "redirect", "importer"].includes(s));
      if (bad || !list.length) {
        ctx.addIssue({ code: "custom", message: `must be a comma list of api, redirect, importer (bad entry "${bad ?? ""}")` });
        return z.NEVER;
      }
      return list as Array<"api" | "redirect" | "importer">;
    })
    .default(["api", "redirect", "importer"]),
  IMPORT_MAX_BYTES: int(1024, 2 ** 31 - 1).default(50 * 1024 * 1024),
  IMPORT_MAX_ROWS: int(1, 100_000_000).default(1_000_000),
  IMPORT_BATCH_SIZE: int(1, 50_000).optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], { error: "must be one of fatal, error, warn, info, debug, trace, silent" }).default("info"),
});
export type Env = z.output<typeof Env>;

/** Parses the environment; an empty value counts as unset. Throws one line naming the first bad variable. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const input: Record<string, string> = {};
  for (const key of Object.keys(Env.shape)) {
    const value = source[key];
    if (value !== undefined && value !== "") input[key] = value;
  }
  const result = Env.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const name = String(issue?.path[0] ?? "environment");
  throw new Error(`Invalid setting ${name}: ${issue?.message ?? "malformed"} (got ${JSON.stringify(input[name] ?? "")}).`);
}
