import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { DASHBOARD_CSP, dashboardRoutes } from "../src/routes/dashboard.ts";

/** The dashboard's file server without a build (a fresh clone, or an API started without the web app). */
describe("the dashboard's files when the app is not built", () => {
  it.each([
    ["no folder configured", undefined],
    ["a folder without index.html", "empty"],
  ])("%s: a small 404 page saying how to build it, with the CSP", async (_name, kind) => {
    const dir = kind ? mkdtempSync(join(tmpdir(), "shortener-web-empty-")) : undefined;
    if (dir) writeFileSync(join(dir, "stray.txt"), "not an app");
    const app = Fastify();
    dashboardRoutes(app, dir);
    try {
      for (const url of ["/app/", "/app/links", "/app/assets/index-x.js"]) {
        const res = await app.inject({ method: "GET", url });
        expect(res.statusCode, url).toBe(404);
        expect(res.headers["content-type"], url).toBe("text/html; charset=utf-8");
        expect(res.headers["content-security-policy"], url).toBe(DASHBOARD_CSP);
        expect(res.body, url).toContain("pnpm build");
      }
      const bare = await app.inject({ method: "GET", url: "/app?x=1" });
      expect(bare.statusCode).toBe(301);
      expect(bare.headers.location).toBe("/app/?x=1");
    } finally {
      await app.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the page's CSP allows nothing but the service itself and forbids framing (CONTRACT §15)", () => {
    expect(DASHBOARD_CSP).toContain("frame-ancestors 'none'");
    expect(DASHBOARD_CSP).toContain("script-src 'self'");
    expect(DASHBOARD_CSP).not.toContain("unsafe-inline");
    expect(DASHBOARD_CSP).not.toContain("unsafe-eval");
  });
});
