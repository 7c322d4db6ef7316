import { isIP } from "node:net";
import { z } from "zod";
import { normalizeDomainName } from "@shortener/core";

/*
 * Every setting of CONTRACT §13 in one table, read from the environment by the launcher (`pnpm start`)
 * and by the importer's CLI, each through `parseSettings`. To add a setting, add one entry to
 * `Settings` below (and a row to README.md, docs/configuration.md and .env.example); each entry point
 * picks the names it reads. Values arrive as strings; an empty value counts as unset.
 */

const intMessage = (min: number, max: number) => `must be an integer from ${min} to ${max}`;

/** A decimal integer from `min` to `max`. */
export const intSetting = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, { error: intMessage(min, max) })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, { error: intMessage(min, max) })
        .max(max, { error: intMessage(min, max) }),
    );

/** One of `values`. */
export const enumSetting = <const T extends readonly [string, ...string[]]>(values: T) => z.enum(values, { error: `must be one of ${values.join(", ")}` });

/** A comma list of distinct entries, each one of `values`; an entry named in `aliases` counts as the value it maps to. */
export const listSetting = <const T extends string>(values: readonly T[], aliases: Readonly<Record<string, T>> = {}) =>
  z.string().transform((value, ctx) => {
    const list = [
      ...new Set(
        value
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
          .map((s) => (Object.hasOwn(aliases, s) && aliases[s]) || s),
      ),
    ];
    const bad = list.find((s) => !values.includes(s as T));
    if (bad !== undefined || !list.length) {
      ctx.addIssue({ code: "custom", message: `must be a comma list of ${values.join(", ")} (bad entry "${bad ?? ""}")` });
      return z.NEVER;
    }
    return list as T[];
  });

const trustProxy = z.string().transform((value, ctx) => {
  if (value === "true") return true;
  if (value === "false") return false;
  const list = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
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
  const list = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
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
  for (const item of value
    .split(",")
    .map((s) => s.trim().toLowerCase().replace(/\.$/, ""))
    .filter(Boolean)) {
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

/**
 * An OpenID Connect issuer (docs/sso.md): an `https://` URL without query or fragment, or `http://` on
 * a loopback address only (tests and local development; nothing else may carry sign-ins in the clear).
 */
const oidcIssuer = z.string().refine(
  (value) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return false;
    }
    if (url.search || url.hash || url.username || url.password) return false;
    return url.protocol === "https:" || (url.protocol === "http:" && ["127.0.0.1", "[::1]", "localhost"].includes(url.hostname));
  },
  { error: "must be the provider's https:// issuer URL, without query or fragment (http:// only on 127.0.0.1, [::1] or localhost)" },
);

/** A comma list of postgres:// URLs (a URL holds no comma unencoded). */
const postgresUrls = z.string().transform((value, ctx) => {
  const list = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = list.findIndex((item) => !/^postgres(ql)?:\/\/\S+$/.test(item));
  if (bad >= 0 || !list.length) {
    // The entry's position, not its text: a URL may carry a password.
    ctx.addIssue({ code: "custom", message: `must be a comma list of postgres:// or postgresql:// URLs${bad >= 0 ? ` (entry ${bad + 1} is not one)` : ""}` });
    return z.NEVER;
  }
  return list;
});

export const SERVICE_NAMES = ["api", "redirect", "worker"] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];
/** `importer`, the worker role's former name, still means `worker` (issue #27). */
export const SERVICE_ALIASES: Readonly<Record<string, ServiceName>> = { importer: "worker" };

/** Every setting, all optional (CONTRACT §13, §16). */
export const Settings = z.object({
  PORT: intSetting(1, 65535).default(3000),
  HOST: z.string().min(1).default("127.0.0.1"),
  DATA_DIR: z.string().min(1).default("./.data"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/\S+$/, { error: "must be a postgres:// or postgresql:// URL" })
    .optional(),
  DATABASE_POOL_SIZE: intSetting(1, 1000).default(10),
  /** CONTRACT §26: PostgreSQL streaming replicas to read from, a comma list of URLs (docs/scaling.md). */
  DATABASE_READ_URL: postgresUrls.optional(),
  /** A replica further behind than this many milliseconds is skipped (CONTRACT §26). */
  READ_MAX_LAG_MS: intSetting(10, 3_600_000).default(1000),
  /**
   * The database of DATABASE_URL without a pooler in between: set it when DATABASE_URL is PgBouncer in
   * transaction mode, for LISTEN and session advisory locks (CONTRACT §26, docs/scaling.md).
   */
  DATABASE_DIRECT_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/\S+$/, { error: "must be a postgres:// or postgresql:// URL" })
    .optional(),
  ADMIN_API_KEY: z
    .string()
    .regex(/^[\x21-\x7e]{32,256}$/, { error: "must be 32 to 256 printable characters without spaces" })
    .optional(),
  SHORT_URL_SCHEME: enumSetting(["http", "https"]).optional(),
  REDIRECT_STATUS: enumSetting(["301", "302", "307", "308"])
    .default("302")
    .transform((s) => Number(s) as 301 | 302 | 307 | 308),
  RATE_LIMIT_PER_MINUTE: intSetting(1, 1_000_000).default(120),
  TRUST_PROXY: trustProxy.optional(),
  GEO_COUNTRY_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,64}$/, { error: "must be a header name" })
    .transform((s) => s.toLowerCase())
    .optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\/\S+$/, { error: "must be a redis:// or rediss:// URL" })
    .optional(),
  SECRET: z.string().min(32, { error: "must be at least 32 characters" }).optional(),
  SERVICES: listSetting(SERVICE_NAMES, SERVICE_ALIASES).default([...SERVICE_NAMES]),
  IMPORT_MAX_BYTES: intSetting(1024, 2 ** 31 - 1).default(50 * 1024 * 1024),
  IMPORT_MAX_ROWS: intSetting(1, 100_000_000).default(1_000_000),
  IMPORT_BATCH_SIZE: intSetting(1, 50_000).optional(),
  /** CONTRACT §14: `dns` (a non-admin's domain serves once its TXT record is found) or `off`. */
  DOMAIN_VERIFICATION: z.enum(["dns", "off"], { error: "must be dns or off" }).default("dns"),
  DNS_SERVERS: dnsServers.optional(),
  RESERVED_HOSTS: reservedHosts.default([]),
  /** `1`: webhooks may target private and loopback addresses (CONTRACT §18); the API and the worker read it. */
  WEBHOOK_ALLOW_PRIVATE: enumSetting(["0", "1"])
    .default("0")
    .transform((value) => value === "1"),
  /** `off`: the worker looks at no destination (CONTRACT §25, docs/link-features.md); `on`: each active link's about once a day. */
  HEALTH_CHECKS: enumSetting(["on", "off"]).default("on"),
  /** Requests a second the health checks send to any one destination host, per worker process. */
  HEALTH_HOST_RATE: intSetting(1, 100).default(2),
  /** Each health check request's (and DNS lookup's) time limit, in milliseconds. */
  HEALTH_TIMEOUT_MS: intSetting(100, 120_000).default(10_000),
  /** `1`: health checks look at private, loopback and link-local destinations too (tests, intranets); otherwise those stay `unchecked`. */
  HEALTH_ALLOW_PRIVATE: enumSetting(["0", "1"])
    .default("0")
    .transform((value) => value === "1"),
  LOG_LEVEL: enumSetting(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Serve Prometheus `/metrics` on HOST at this port (CONTRACT §16); unset: no metrics. */
  METRICS_PORT: intSetting(1, 65535).optional(),
  /** `api`: one JSON line per API request; `all`: visits too; `off` (CONTRACT §16). */
  ACCESS_LOG: enumSetting(["api", "all", "off"]).default("api"),
  /** Raw clicks older than this many days are dropped, a whole month's partition at a time (CONTRACT §20); unset: kept. */
  CLICK_RETENTION_DAYS: intSetting(1, 365_000).optional(),
  /** Audit entries older than this many days are deleted by the worker's hourly upkeep (CONTRACT §24); unset: kept. */
  AUDIT_RETENTION_DAYS: intSetting(1, 365_000).optional(),
  /** Mail workspace invitations through this SMTP server (CONTRACT §24): `smtp://user:pass@host:port` or `smtps://…`; unset: never mailed. */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^\s/?#]+(?::\d{1,5})?\/?(?:\?\S*)?$/, { error: "must be an smtp:// or smtps:// URL (smtp://user:pass@host:port)" })
    .optional(),
  /** The sender of those mails: `address` or `Name <address>`; unset: `no-reply@` the service's host. */
  MAIL_FROM: z
    .string()
    .max(320, { error: "must be at most 320 characters" })
    .regex(/^(?:[^\x00-\x1f<>]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, { error: "must be an address or Name <address>" })
    .optional(),
  /** Single sign-on for the dashboard (CONTRACT §24, docs/sso.md): all three or none (the launcher checks). */
  OIDC_ISSUER: oidcIssuer.optional(),
  OIDC_CLIENT_ID: z
    .string()
    .regex(/^[\x21-\x7e]{1,255}$/, { error: "must be 1 to 255 printable characters without spaces" })
    .optional(),
  OIDC_CLIENT_SECRET: z
    .string()
    .regex(/^[\x21-\x7e]{1,1024}$/, { error: "must be 1 to 1024 printable characters without spaces" })
    .optional(),
});
export type Settings = z.output<typeof Settings>;
