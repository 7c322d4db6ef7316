import { describe, expect, it } from "vitest";
import { oidcSettingsOf, parseEnv } from "../src/env.ts";

describe("settings (CONTRACT §13)", () => {
  it("has the documented defaults", () => {
    expect(parseEnv({})).toMatchObject({
      PORT: 3000,
      HOST: "127.0.0.1",
      DATA_DIR: "./.data",
      REDIRECT_STATUS: 302,
      RATE_LIMIT_PER_MINUTE: 120,
      LOG_LEVEL: "info",
      DOMAIN_VERIFICATION: "dns",
      RESERVED_HOSTS: [],
    });
    expect(parseEnv({}).DNS_SERVERS).toBeUndefined();
  });

  it("reads the domain settings of CONTRACT §14", () => {
    const env = parseEnv({
      DOMAIN_VERIFICATION: "off",
      DNS_SERVERS: "127.0.0.1:5353, 9.9.9.9,::1, [2001:db8::1]:53",
      RESERVED_HOSTS: "Short.Example.COM, *.internal.example., bücher.example",
    });
    expect(env.DOMAIN_VERIFICATION).toBe("off");
    expect(env.DNS_SERVERS).toEqual(["127.0.0.1:5353", "9.9.9.9", "::1", "[2001:db8::1]:53"]);
    expect(env.RESERVED_HOSTS).toEqual(["short.example.com", "*.internal.example", "xn--bcher-kva.example"]);
  });

  it("reads good values, and empty values count as unset", () => {
    const env = parseEnv({ PORT: "8080", REDIRECT_STATUS: "308", TRUST_PROXY: "10.0.0.1, 192.168.0.0/16", SHORT_URL_SCHEME: "http", HOST: "" });
    expect(env).toMatchObject({ PORT: 8080, REDIRECT_STATUS: 308, TRUST_PROXY: ["10.0.0.1", "192.168.0.0/16"], SHORT_URL_SCHEME: "http", HOST: "127.0.0.1" });
    expect(parseEnv({ TRUST_PROXY: "true" }).TRUST_PROXY).toBe(true);
    expect(parseEnv({}).WEBHOOK_ALLOW_PRIVATE).toBe(false);
    expect(parseEnv({ WEBHOOK_ALLOW_PRIVATE: "1" }).WEBHOOK_ALLOW_PRIVATE).toBe(true);
    expect(parseEnv({ WEBHOOK_ALLOW_PRIVATE: "0" }).WEBHOOK_ALLOW_PRIVATE).toBe(false);
  });

  it("reads the destination health settings (CONTRACT §25), on by default and private destinations refused", () => {
    expect(parseEnv({})).toMatchObject({ HEALTH_CHECKS: "on", HEALTH_HOST_RATE: 2, HEALTH_TIMEOUT_MS: 10_000, HEALTH_ALLOW_PRIVATE: false });
    expect(parseEnv({ HEALTH_CHECKS: "off", HEALTH_HOST_RATE: "5", HEALTH_TIMEOUT_MS: "2500", HEALTH_ALLOW_PRIVATE: "1" })).toMatchObject({
      HEALTH_CHECKS: "off",
      HEALTH_HOST_RATE: 5,
      HEALTH_TIMEOUT_MS: 2500,
      HEALTH_ALLOW_PRIVATE: true,
    });
  });

  it("reads the replicas as a list, their allowed lag, and the direct URL (CONTRACT §26)", () => {
    const defaults = parseEnv({});
    expect([defaults.DATABASE_READ_URL, defaults.READ_MAX_LAG_MS, defaults.DATABASE_DIRECT_URL]).toEqual([undefined, 1000, undefined]);
    const env = parseEnv({
      DATABASE_URL: "postgres://pgbouncer:6432/db",
      DATABASE_READ_URL: "postgres://r1:5432/db, postgresql://u:p@r2/db,",
      READ_MAX_LAG_MS: "250",
      DATABASE_DIRECT_URL: "postgres://db:5432/db",
    });
    expect(env).toMatchObject({ DATABASE_READ_URL: ["postgres://r1:5432/db", "postgresql://u:p@r2/db"], READ_MAX_LAG_MS: 250, DATABASE_DIRECT_URL: "postgres://db:5432/db" });
  });

  it.each([
    ["PORT", "abc"],
    ["PORT", "0"],
    ["PORT", "70000"],
    ["REDIRECT_STATUS", "303"],
    ["RATE_LIMIT_PER_MINUTE", "-5"],
    ["ADMIN_API_KEY", "too-short"],
    ["ADMIN_API_KEY", `has space ${"x".repeat(40)}`],
    ["DATABASE_URL", "mysql://x"],
    ["DATABASE_READ_URL", "mysql://x"],
    ["DATABASE_READ_URL", "postgres://replica-1/db, http://replica-2/db"],
    ["DATABASE_READ_URL", " , "],
    ["READ_MAX_LAG_MS", "5"],
    ["READ_MAX_LAG_MS", "1s"],
    ["DATABASE_DIRECT_URL", "redis://x"],
    ["SHORT_URL_SCHEME", "ftp"],
    ["TRUST_PROXY", "not-an-ip"],
    ["REDIS_URL", "http://x"],
    ["SECRET", "short"],
    ["LOG_LEVEL", "loud"],
    ["GEO_COUNTRY_HEADER", "bad header"],
    ["DOMAIN_VERIFICATION", "txt"],
    ["DNS_SERVERS", "dns.example"],
    ["DNS_SERVERS", "127.0.0.1:0"],
    ["DNS_SERVERS", "127.0.0.1:65536"],
    ["DNS_SERVERS", "127.0.0.1:53, 300.1.1.1"],
    ["DNS_SERVERS", "[127.0.0.1]:53"],
    ["DNS_SERVERS", "::1:53x"],
    ["DNS_SERVERS", " , "],
    ["RESERVED_HOSTS", "short.example:8080"],
    ["RESERVED_HOSTS", "ok.example, bad host"],
    ["RESERVED_HOSTS", "*.*.example"],
    ["RESERVED_HOSTS", "http://x.example/path"],
    ["WEBHOOK_ALLOW_PRIVATE", "yes"],
    ["HEALTH_CHECKS", "false"],
    ["HEALTH_HOST_RATE", "0"],
    ["HEALTH_HOST_RATE", "1.5"],
    ["HEALTH_HOST_RATE", "101"],
    ["HEALTH_TIMEOUT_MS", "50"],
    ["HEALTH_TIMEOUT_MS", "10s"],
    ["HEALTH_ALLOW_PRIVATE", "true"],
    ["DATABASE_READ_URL", "postgres://replica/db"],
    ["DATABASE_DIRECT_URL", "postgres://db/db"],
  ])("%s=%s stops the start with one line naming it", (name, value) => {
    let message = "";
    try {
      parseEnv({ [name]: value });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(new RegExp(`^Invalid setting ${name}: `));
    expect(message).not.toContain("\n");
  });
});

describe("single sign-on settings (OIDC_*, docs/sso.md)", () => {
  const ALL = { OIDC_ISSUER: "https://sso.example.com/realms/acme", OIDC_CLIENT_ID: "shortener", OIDC_CLIENT_SECRET: "s3cr3t~value.with-signs_" };

  it("all three set: single sign-on is on; none: off", () => {
    expect(oidcSettingsOf(parseEnv(ALL))).toEqual({ issuer: ALL.OIDC_ISSUER, clientId: "shortener", clientSecret: ALL.OIDC_CLIENT_SECRET });
    expect(oidcSettingsOf(parseEnv({}))).toBeUndefined();
    expect(oidcSettingsOf(parseEnv({ OIDC_ISSUER: "", OIDC_CLIENT_ID: "", OIDC_CLIENT_SECRET: "" }))).toBeUndefined();
  });

  it.each([
    ["only the issuer", { OIDC_ISSUER: ALL.OIDC_ISSUER }, "OIDC_CLIENT_ID", "OIDC_ISSUER is set"],
    ["no secret", { OIDC_ISSUER: ALL.OIDC_ISSUER, OIDC_CLIENT_ID: "shortener" }, "OIDC_CLIENT_SECRET", "OIDC_ISSUER and OIDC_CLIENT_ID are set"],
    ["no issuer", { OIDC_CLIENT_ID: "shortener", OIDC_CLIENT_SECRET: "x" }, "OIDC_ISSUER", "OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are set"],
    ["only the secret", { OIDC_CLIENT_SECRET: "x" }, "OIDC_ISSUER", "OIDC_CLIENT_SECRET is set"],
  ])("set in part (%s): the start stops with one line naming the first one missing", (_, source, missing, set) => {
    expect(() => parseEnv(source)).toThrow(new RegExp(`^Invalid setting ${missing}: single sign-on needs OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET together, and ${set} without it\\.$`));
  });

  it.each([
    ["OIDC_ISSUER", "sso.example.com"],
    ["OIDC_ISSUER", "http://sso.example.com"],
    ["OIDC_ISSUER", "http://10.0.0.5:8080"],
    ["OIDC_ISSUER", "https://sso.example.com/?tenant=1"],
    ["OIDC_ISSUER", "https://sso.example.com/#x"],
    ["OIDC_ISSUER", "https://user:pw@sso.example.com"],
    ["OIDC_ISSUER", "ftp://sso.example.com"],
    ["OIDC_CLIENT_ID", "has space"],
    ["OIDC_CLIENT_ID", "x".repeat(256)],
    ["OIDC_CLIENT_SECRET", "has\u0000nul"],
  ])("%s=%j is refused, naming it", (name, value) => {
    expect(() => parseEnv({ ...ALL, [name]: value })).toThrow(new RegExp(`^Invalid setting ${name}: `));
  });

  it("http:// issuers only on loopback addresses (tests, local development)", () => {
    for (const issuer of ["http://127.0.0.1:9000", "http://localhost:9000/realms/dev", "http://[::1]:9000"]) expect(parseEnv({ ...ALL, OIDC_ISSUER: issuer }).OIDC_ISSUER).toBe(issuer);
  });

  it("a bad secret is named with its length, never echoed", () => {
    const secret = "leaked secret with spaces";
    expect(() => parseEnv({ ...ALL, OIDC_CLIENT_SECRET: secret })).toThrow(
      /^Invalid setting OIDC_CLIENT_SECRET: must be 1 to 1024 printable characters without spaces \(got 25 characters, not shown\)\.$/,
    );
    expect(() => parseEnv({ SECRET: "short" })).toThrow(/\(got 5 characters, not shown\)\.$/);
  });
});
