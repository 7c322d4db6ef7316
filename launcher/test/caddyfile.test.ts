import { readFileSync } from "node:fs";
import { SERVICE_PATHS, SERVICE_ROUTES } from "@shortener/core";
import { describe, expect, it } from "vitest";

/*
 * deploy/Caddyfile (docs/tls.md) names the paths the api role answers, and reads its settings from the
 * environment: both lists are kept true here, without Caddy (the end-to-end test runs it:
 * tls-caddy.system.test.ts).
 */

const CADDYFILE = readFileSync(new URL("../../deploy/Caddyfile", import.meta.url), "utf8");
const ACME = readFileSync(new URL("../../deploy/caddy/acme.caddy", import.meta.url), "utf8");

describe("deploy/Caddyfile", () => {
  it("sends exactly the api role's paths (core's SERVICE_PATHS and SERVICE_ROUTES) to API_UPSTREAM", () => {
    const line = CADDYFILE.split("\n").find((l) => l.trim().startsWith("@api path "));
    const paths = (line ?? "").trim().split(/\s+/).slice(2);
    const expected = [...SERVICE_PATHS.flatMap((p) => [`/${p}`, `/${p}/*`]), ...SERVICE_ROUTES];
    expect([...paths].sort()).toEqual([...expected].sort());
    expect(CADDYFILE).toMatch(/reverse_proxy @api \{\$API_UPSTREAM:127\.0\.0\.1:3000\}/);
    expect(CADDYFILE).toContain("ask http://{$API_UPSTREAM:127.0.0.1:3000}/tls/ask");
  });

  it("documents at its top every environment variable it (or the ACME options it imports) reads, and no other", () => {
    const used = new Set([...(CADDYFILE + ACME).matchAll(/\{\$([A-Z_]+)/g)].map((m) => m[1]));
    const header = CADDYFILE.split("\n").filter((l) => l.startsWith("#"));
    const documented = new Set(header.flatMap((l) => /^#\s{3}([A-Z_]+)\s/.exec(l)?.[1] ?? []));
    expect([...used].sort()).toEqual([...documented].sort());
    expect(used).toEqual(new Set(["SHORTENER_HOST", "UPSTREAM", "API_UPSTREAM", "ACME_EMAIL", "CADDY_TLS_OPTIONS"]));
  });

  it("gets certificates on demand only behind the ask endpoint", () => {
    expect(CADDYFILE).toMatch(/on_demand_tls \{\s+ask http:\/\/[^\s]+\/tls\/ask\s+\}/);
    expect(CADDYFILE).toMatch(/https:\/\/ \{\s+tls \{\s+on_demand\s+\}/);
  });
});
