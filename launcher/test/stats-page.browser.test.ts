import { testDriver } from "@shortener/db/testing";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { recordClicks, type Click } from "@shortener/core";
import { seededRandom } from "@shortener/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openChromium, type Chromium } from "./browser.ts";
import { apiData, startTestServer, type TestServer } from "./helpers.ts";

/**
 * The public stats page in a real browser: Debian's Chromium (never a downloaded one) driven by
 * playwright-core, against the real all-in-one server. `UPDATE_SCREENSHOTS=1` also refreshes
 * docs/stats-page.png.
 */
const SCREENSHOT = fileURLToPath(new URL("../../docs/stats-page.png", import.meta.url));
const ADMIN_KEY = `shk_${"S".repeat(40)}`;
const DAY = 86_400_000;
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
type AxeResult = { violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown }> }> };

let server: TestServer;
let browser: Chromium;
let base: string;

beforeAll(async () => {
  server = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY, RATE_LIMIT_PER_MINUTE: "100000" });
  base = server.base;
  browser = await openChromium({ viewport: { width: 1200, height: 900 }, deviceScaleFactor: 1, colorScheme: "light" });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const api = (method: string, path: string, form?: Record<string, string>): Promise<unknown> => apiData(base, ADMIN_KEY, method, path, form);

async function createLink(form: Record<string, string> = {}): Promise<number> {
  const [domain] = (await api("GET", "/api/v1/domains")) as Array<{ id: number }>;
  const link = (await api("POST", "/api/v1/links", { url: "https://example.org/launch", domain_id: String(domain?.id), ...form })) as { id: number };
  return link.id;
}

function pick<T>(random: () => number, weighted: Array<[T, number]>): T {
  const total = weighted.reduce((s, [, w]) => s + w, 0);
  let r = random() * total;
  for (const [value, weight] of weighted) {
    r -= weight;
    if (r <= 0) return value;
  }
  return weighted[0]?.[0] as T;
}

const COUNTRIES: Array<[string | null, number]> = [
  ["US", 34],
  ["DE", 14],
  ["GB", 11],
  ["FR", 8],
  ["IN", 8],
  ["BR", 6],
  ["JP", 5],
  ["CA", 5],
  ["NL", 4],
  ["ES", 3],
  ["SE", 2],
  [null, 3],
];
const AGENTS: Array<[[string, string, string], number]> = [
  [["Windows", "Chrome", "desktop"], 30],
  [["iOS", "Mobile Safari", "mobile"], 24],
  [["Android", "Chrome", "mobile"], 18],
  [["OS X", "Safari", "desktop"], 12],
  [["OS X", "Chrome", "desktop"], 8],
  [["Linux", "Firefox", "desktop"], 5],
  [["iOS", "Mobile Safari", "tablet"], 3],
];
const LANGUAGES: Array<[string | null, number]> = [
  ["en", 55],
  ["de", 14],
  ["fr", 8],
  ["pt", 6],
  ["ja", 5],
  ["es", 5],
  ["nl", 3],
  [null, 4],
];
const REFERRERS: Array<[string | null, number]> = [
  [null, 30],
  ["t.co", 18],
  ["news.ycombinator.com", 15],
  ["www.google.com", 12],
  ["github.com", 9],
  ["www.linkedin.com", 7],
  ["www.reddit.com", 6],
  ["lobste.rs", 3],
];

/** About 90 days of traffic with a weekly rhythm, a launch spike and a daily cycle, through recordClicks. */
async function seedClicks(linkId: number, seed: number): Promise<number> {
  // Seeded, so the page (and the screenshot) look the same every run.
  const random = seededRandom(seed);
  const now = Date.now();
  const clicks: Click[] = [];
  for (let d = 89; d >= 0; d--) {
    const day = new Date(now - d * DAY);
    const weekday = day.getUTCDay();
    const spike = d === 24 ? 3.2 : d === 23 ? 1.9 : 1;
    const n = Math.round((28 + (89 - d) * 0.35) * (weekday === 0 || weekday === 6 ? 0.55 : 1) * spike * (0.8 + random() * 0.4));
    for (let i = 0; i < n; i++) {
      const hour = Math.min(23, Math.floor(Math.abs(13 + (random() + random() + random() - 1.5) * 8)));
      const at = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), hour, Math.floor(random() * 60)));
      if (at.getTime() > now) continue;
      const [platform, browser, device] = pick(random, AGENTS);
      clicks.push({
        linkId,
        at,
        country: pick(random, COUNTRIES),
        platform,
        browser,
        device,
        language: pick(random, LANGUAGES),
        referrer: pick(random, REFERRERS),
        counted: false,
        rotation: null,
      });
    }
  }
  for (let i = 0; i < clicks.length; i += 1000) await recordClicks(server.database.db, clicks.slice(i, i + 1000));
  return clicks.length;
}

const rangeOf90Days = () => `from=${new Date(Date.now() - 89 * DAY).toISOString().slice(0, 10)}&to=${new Date().toISOString().slice(0, 10)}`;

describe("the stats page in Chromium", () => {
  it("draws the charts as SVG under its CSP, with the numbers visible", async () => {
    const id = await createLink({ title: "Launch announcement" });
    const total = await seedClicks(id, 7);
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(m.text());
    });
    page.on("pageerror", (e) => problems.push(e.message));
    try {
      const response = await page.goto(`${base}/stats/${id}?${rangeOf90Days()}`);
      expect(response?.status()).toBe(200);
      expect(await page.title()).toBe("Statistics: Launch announcement");
      await expect.poll(() => page.locator("svg#chart-clicks rect.bar").count()).toBeGreaterThan(60);
      expect(await page.locator("svg#chart-clicks").getAttribute("role")).toBe("img");
      expect(await page.locator("svg#chart-country g.row").count()).toBeGreaterThan(5);
      expect(await page.locator("svg#chart-hours rect.hour").count()).toBeGreaterThan(10);
      // The numbers people read: the total, the top country, its count in the bars.
      expect(await page.locator(".card").first().innerText()).toContain(new Intl.NumberFormat("en-US").format(total));
      expect(await page.locator("svg#chart-country").textContent()).toContain("United States");
      expect(await page.locator("svg#chart-referrer").textContent()).toContain("news.ycombinator.com");
      expect(await page.getByRole("heading", { name: /Countries/ }).isVisible()).toBe(true);
      // The nonce'd style block applied under the CSP, and nothing was blocked or failed.
      // (Browser-side code as strings: this package type-checks against Node's globals, not the DOM's.)
      expect(await page.evaluate(`getComputedStyle(document.querySelector(".card")).borderRadius`)).toBe("14px");
      const bar = page.locator("svg#chart-clicks rect.bar").first();
      expect(await bar.evaluate(`(el) => getComputedStyle(el).fill`)).not.toBe("rgb(0, 0, 0)");
      expect(problems).toEqual([]);

      const png = await page.screenshot({ fullPage: true });
      expect(png.subarray(1, 4).toString()).toBe("PNG");
      expect(png.length).toBeGreaterThan(20_000);
      writeFileSync(process.env.UPDATE_SCREENSHOTS === "1" ? SCREENSHOT : join(tmpdir(), `stats-page-${testDriver()}.png`), png);

      // The range form: a shorter range redraws with fewer columns.
      await page.getByRole("link", { name: "7 days" }).click();
      await page.waitForURL(/from=/);
      expect(await page.locator("svg#chart-clicks rect.bar").count()).toBeLessThanOrEqual(7);
      expect(await page.locator('.presets a[aria-current="true"]').innerText()).toBe("7 days");
    } finally {
      await page.close();
    }
  }, 120_000);

  it("fits a 390 px phone: nothing wider than the screen, the Show button whole, people, unique visitors and bots shown, axe clean", async () => {
    const id = await createLink({ title: "A link people open on their phones, with a long title that has to wrap" });
    await seedClicks(id, 13);
    const page = await browser.newPage();
    try {
      await page.setViewportSize({ width: 390, height: 844 });
      for (const path of [`/stats/${id}?${rangeOf90Days()}`, `/stats/${id}`]) {
        expect((await page.goto(`${base}${path}`))?.status()).toBe(200);
        await expect.poll(() => page.locator("svg#chart-clicks rect.bar").count()).toBeGreaterThan(20);
        expect(await page.evaluate(`document.documentElement.scrollWidth`), path).toBeLessThanOrEqual(390);
        const show = page.getByRole("button", { name: "Show" });
        const box = await show.boundingBox();
        expect(box, path).not.toBeNull();
        expect(box?.x ?? -1).toBeGreaterThanOrEqual(0);
        expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(390);
        const keys = await page.locator(".card .k").allInnerTexts();
        expect(keys.map((k) => k.toLowerCase())).toEqual(expect.arrayContaining(["clicks", "unique visitors", "bots"]));
        await page.evaluate(AXE_SOURCE);
        const result = (await page.evaluate(`axe.run(document, { resultTypes: ["violations"] })`)) as AxeResult;
        const severe = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
        expect(
          severe.map((v) => `${v.id} (${v.impact}): ${JSON.stringify(v.nodes.map((n) => n.target))}`),
          path,
        ).toEqual([]);
      }
      // The range form still works from the phone: a shorter range redraws.
      await page.getByRole("link", { name: "7 days" }).click();
      await page.waitForURL(/from=/);
      expect(await page.locator("svg#chart-clicks rect.bar").count()).toBeLessThanOrEqual(7);
      expect(await page.evaluate(`document.documentElement.scrollWidth`)).toBeLessThanOrEqual(390);
    } finally {
      await page.close();
    }
  }, 120_000);

  it("privacy 2: the password form says when it is wrong and shows the charts once it is right", async () => {
    const id = await createLink({ privacy: "2", privacy_password: "correct horse" });
    await seedClicks(id, 11);
    const page = await browser.newPage();
    try {
      await page.goto(`${base}/stats/${id}`);
      expect(await page.locator("svg").count()).toBe(0);
      await page.getByLabel("Password").fill("wrong guess");
      await page.getByRole("button", { name: "Show statistics" }).click();
      await expect.poll(() => page.getByRole("alert").textContent()).toBe("That password is not right.");
      expect(await page.locator("svg").count()).toBe(0);

      await page.getByLabel("Password").fill("correct horse");
      await Promise.all([page.waitForURL(`${base}/stats/${id}`), page.getByRole("button", { name: "Show statistics" }).click()]);
      await expect.poll(() => page.locator("svg#chart-clicks rect.bar").count()).toBeGreaterThan(20);
      expect(await page.locator("h1").innerText()).toContain(`/`);
      // The cookie keeps the page open on the next visit, and JavaScript cannot read it.
      await page.reload();
      expect(await page.locator("svg#chart-clicks rect.bar").count()).toBeGreaterThan(20);
      expect(await page.evaluate(`document.cookie`)).toBe("");
    } finally {
      await page.close();
    }
  }, 120_000);

  it("privacy 1: a visitor without the owner's key sees the same page as for a missing link", async () => {
    const id = await createLink({ privacy: "1" });
    const page = await browser.newPage();
    try {
      const hidden = await page.goto(`${base}/stats/${id}`);
      expect(hidden?.status()).toBe(404);
      const hiddenText = await page.locator("main").innerText();
      const missing = await page.goto(`${base}/stats/2000000000`);
      expect(missing?.status()).toBe(404);
      expect(await page.locator("main").innerText()).toBe(hiddenText);
    } finally {
      await page.close();
    }
  }, 60_000);
});
