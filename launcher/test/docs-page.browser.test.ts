import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openChromium, type Chromium } from "./browser.ts";
import { startTestServer, type TestServer } from "./helpers.ts";

/**
 * `GET /api/docs` (CONTRACT §16) in a real browser: Redoc's standalone bundle, served by the service,
 * renders the public OpenAPI document under a CSP that allows nothing from elsewhere.
 */
let server: TestServer;
let browser: Chromium;
let base: string;

beforeAll(async () => {
  server = await startTestServer({ SERVICES: "api" });
  base = server.base;
  browser = await openChromium({ viewport: { width: 1200, height: 900 } });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("GET /api/docs", () => {
  it("is an HTML page with a CSP that forbids framing and every other origin", async () => {
    const res = await fetch(`${base}/api/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    const html = await res.text();
    expect(html).not.toMatch(/https?:\/\//);
    const script = await fetch(`${base}/api/docs/redoc.standalone.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });

  it("renders the reference in a browser: every tag and operation, no error but the CSP blocking Redoc’s own logo, nothing fetched from elsewhere", async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    const foreign: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    // What reached the network elsewhere (a request the CSP blocks never gets a response).
    page.on("response", (response) => {
      const url = response.url();
      if (!url.startsWith(base) && !url.startsWith("data:") && !url.startsWith("blob:")) foreign.push(url);
    });
    try {
      await page.goto(`${base}/api/docs`);
      await page.locator("h2", { hasText: "Create a link" }).first().waitFor({ timeout: 60_000 });
      const text = await page.locator("body").innerText();
      for (const expected of [
        "Shortener REST API",
        "Links",
        "Statistics",
        "Imports",
        "Upload a CSV of links",
        "A link's summary, or one series of its clicks",
        "Orphan visits of a domain",
        "This document (no key needed",
      ]) {
        expect(text).toContain(expected);
      }
      // Redoc's footer links its logo from cdn.redoc.ly: the CSP blocks it (no response, see `foreign`).
      expect(problems.filter((p) => !/^Loading the image 'https:\/\/cdn\.redoc\.ly\/[^']+' violates the following Content Security Policy directive/.test(p))).toEqual([]);
      expect(foreign).toEqual([]);
    } finally {
      await page.close();
    }
  }, 120_000);
});
