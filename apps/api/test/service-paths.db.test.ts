import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CreateLinkInput, isAliasShaped, isReservedAlias, RESERVED_PATHS, SERVICE_PATHS, SERVICE_ROUTES } from "@shortener/core";
import { isApiPath } from "../src/index.ts";
import { createTestApi, type TestApi } from "./helpers.ts";

/**
 * Every path the API mounts must be one the launcher sends to it (`isApiPath`) and one no alias can
 * take (core's `RESERVED_PATHS`): otherwise a link could shadow a route, or a route a link. The routes
 * come from the live Fastify instance, so a route added later is checked without editing this file.
 */
let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(async () => {
  await api?.close();
});

/** The full paths of `printRoutes({ commonPrefix: false })`: a node's text is appended to its parent's path. */
function mountedPaths(tree: string): string[] {
  const paths: string[] = [];
  const stack: string[] = [];
  for (const line of tree.split("\n")) {
    const match = /^([│ ]*)[├└]── (\S+)/u.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? "").length / 4;
    const path = (stack[depth - 1] ?? "") + match[2];
    stack.length = depth;
    stack.push(path);
    paths.push(path);
  }
  return paths;
}

describe("the service's paths are reserved (core's SERVICE_PATHS and RESERVED_PATHS)", () => {
  it("reads the mounted routes (the parser sees nested and parametric routes)", () => {
    const paths = mountedPaths(api.app.printRoutes({ commonPrefix: false }));
    expect(paths).toContain("/healthz");
    expect(paths).toContain("/api/v1/links/:id");
    expect(paths).toContain("/api/v1/imports/:id/errors");
    expect(paths.length).toBeGreaterThan(15);
  });

  it("every mounted route is under a reserved service path, or one of the service's routes, and the launcher routes it to the API", () => {
    for (const printed of mountedPaths(api.app.printRoutes({ commonPrefix: false }))) {
      // A wildcard route (`/app/*`, the dashboard's files) prints as `/app*`.
      const path = printed.replace(/\*$/, "");
      if ((SERVICE_ROUTES as readonly string[]).includes(path)) {
        expect(isApiPath(path), path).toBe(true);
        continue;
      }
      // `/tls` (the route's parent node) is no route of its own; its first segment stays a free alias.
      if (SERVICE_ROUTES.some((route) => route.startsWith(`${path}/`))) continue;
      const first = path.split("/")[1] ?? "";
      expect(SERVICE_PATHS, path).toContain(first);
      expect(RESERVED_PATHS, path).toContain(first);
      expect(isReservedAlias(first), path).toBe(true);
      expect(isApiPath(path), path).toBe(true);
      expect(isApiPath(path.replace(/:[a-z]+/gi, "1")), path).toBe(true);
    }
  });

  it("every service path is mounted (no dead entry in the list)", () => {
    const firsts = new Set(mountedPaths(api.app.printRoutes({ commonPrefix: false })).map((p) => p.split("/")[1]));
    for (const path of SERVICE_PATHS) expect(firsts, path).toContain(path);
  });

  it("every service route is mounted, and no alias, nor an alias's QR path, can be it (so it reserves no alias)", () => {
    const paths = mountedPaths(api.app.printRoutes({ commonPrefix: false }));
    for (const route of SERVICE_ROUTES) {
      expect(paths, route).toContain(route);
      const rest = route.slice(1);
      expect(isAliasShaped(rest), route).toBe(false);
      expect(rest.endsWith("/qr") && isAliasShaped(rest.slice(0, -3)), route).toBe(false);
      expect(isReservedAlias(rest.split("/")[0] ?? ""), route).toBe(false);
    }
  });

  it("no reserved path is accepted as an alias, in any case", () => {
    for (const path of RESERVED_PATHS) {
      for (const alias of [path, path.toUpperCase()]) {
        const result = CreateLinkInput.safeParse({ url: "https://example.com/", domain_id: 1, alias });
        expect(result.success, alias).toBe(false);
        expect(
          result.error?.issues.map((i) => i.message),
          alias,
        ).toContain("The alias is reserved by the service.");
      }
    }
  });

  it.each([
    ["/api/v1/links", true],
    ["/api", true],
    ["/api?x=1", true],
    ["/trpc/links.list?input=%7B%7D", true],
    ["/stats/12", true],
    ["/api/v1/stats?name=summary", true],
    ["/api/v1/domains/3/visits?name=alias", true],
    ["/healthz", true],
    ["/healthz?probe=1", true],
    ["/readyz", true],
    ["/apiary", false],
    ["/statsx/1", false],
    ["/healthzz", false],
    ["/API/v1/links", false],
    ["/abc", false],
    ["/", false],
    // The dashboard is the API's to serve (CONTRACT §19).
    ["/app", true],
    ["/app/links?page=2", true],
    ["/apps", false],
    // The TLS proxy's question, and only it: `tls` stays a free alias (docs/tls.md).
    ["/tls/ask", true],
    ["/tls/ask?domain=example.com", true],
    ["/tls", false],
    ["/tls/qr", false],
    ["/tls/asks", false],
    ["/tls/ask/", false],
    ["/TLS/ask", false],
  ])("isApiPath(%s) is %s", (url, expected) => {
    expect(isApiPath(url)).toBe(expected);
  });
});
