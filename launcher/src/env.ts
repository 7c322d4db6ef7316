import { isIP } from "node:net";
import { z } from "zod";
import { normalizeDomainName } from "@shortener/core";

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

const isPort = (port: string | undefined) => port === undefined || (/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535);

/** `ip`, `ipv4:port` or `[ipv6]:port`, as node:dns `setServers` takes them. */
function isDnsServer(item: string): boolean {
  if (isIP(item)) return true;
  const ipv6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(item);
  if (ipv6) return isIP(ipv6[1] ?? "") === 6 && isPort(ipv6[2]);
  const ipv4 = /^([\d.]+):(\d+)$/.exec(item);
  return !!ipv4 && isIP(ipv4[1] ?? "") === 4 && isPort(ipv4[2]);
}

/** The resolvers of domain verification (CONTRACT §14): a comma list. */
const dnsServers = z.string().transform((value, ctx) => {
  const list = value.split(",").map((s) => s.trim()).filter(Boolean);
  const bad = list.find((item) => !isDnsServer(item));
  if (bad !== undefined || !list.length) {
    ctx.addIssue({ code: "custom", message: `must be a comma list of ip, ip:port or [ipv6]:port (bad entry "${bad ?? ""}")` });
    return z.NEVER;
  }
  return list;
});

/** Host names (no port), or `*.name` for every subdomain of name; stored lower-case, IDN as punycode. */
const reservedHosts = z.string().transform((value, ctx) => {
  const list: string[] = [];
  for (const item of value.split(",").map((s) => s.trim().toLowerCase().replace(/\.$/, "")).filter(Boolean)) {
    const wildcard = item.startsWith("*.");
    const name = normalizeDomainName(wildcard ? item.slice(2) : item);
    if (!name || name.includes(":")) {
      ctx.addIssue({ code: "custom", message: `must be a comma list of host names without a port, or *.name (bad entry "${item}")` });
      return z.NEVER;
    }
    list.push(wildcard ? `*.${name}` : name);
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
  DOMAIN_VERIFICATION: z.enum(["dns", "off"], { error: "must be dns or off" }).default("dns"),
  DNS_SERVERS: dnsServers.optional(),
  RESERVED_HOSTS: reservedHosts.default([]),
  WEBHOOK_ALLOW_PRIVATE: z.enum(["0", "1"], { error: "must be 0 or 1" }).default("0").transform((value) => value === "1"),
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
