import { parseSettings, Settings, SettingsError } from "@shortener/settings";

/**
 * The launcher's settings: every setting of CONTRACT §13 (the one table is `@shortener/settings`,
 * shared with the importer's CLI). Read once, in main.ts.
 */
export const Env = Settings;
export type Env = Settings;

const OIDC_NAMES = ["OIDC_ISSUER", "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET"] as const;

/**
 * Single sign-on's settings (docs/sso.md), or undefined when none is set. Set in part, they stop the
 * start with one line naming the first one missing: a half-configured provider would only fail at the
 * first sign-in.
 */
export function oidcSettingsOf(env: Env): { issuer: string; clientId: string; clientSecret: string } | undefined {
  const { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret } = env;
  if (issuer !== undefined && clientId !== undefined && clientSecret !== undefined) return { issuer, clientId, clientSecret };
  const set = OIDC_NAMES.filter((name) => env[name] !== undefined);
  const missing = OIDC_NAMES.filter((name) => env[name] === undefined);
  if (!set.length) return undefined;
  throw new SettingsError(`Invalid setting ${missing[0]}: single sign-on needs ${OIDC_NAMES.join(", ")} together, and ${set.join(" and ")} ${set.length === 1 ? "is" : "are"} set without it.`);
}

/** Parses the environment; an empty value counts as unset. Throws one line naming the first bad variable. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const env = parseSettings(Env, source);
  oidcSettingsOf(env);
  // Replicas and a pooler are PostgreSQL's (CONTRACT §26): the embedded database has neither.
  for (const name of ["DATABASE_READ_URL", "DATABASE_DIRECT_URL"] as const) {
    if (env[name] !== undefined && env.DATABASE_URL === undefined) throw new SettingsError(`Invalid setting ${name}: it needs DATABASE_URL (the embedded database has no replicas and no pooler).`);
  }
  return env;
}
