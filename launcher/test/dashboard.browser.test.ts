import { freePort, openServerStorage } from "@shortener/db/testing";
import { eq } from "drizzle-orm";
import { links } from "@shortener/db";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pino from "pino";
import { type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "../src/env.ts";
import { startServer, type RunningServer } from "../src/server.ts";
import { openChromium, type Chromium } from "./browser.ts";
import { seedAnalyticsHistory, sumDays } from "./analytics-seed.ts";
import { apiData } from "./helpers.ts";

/**
 * The dashboard end to end (CONTRACT §19): Debian's Chromium driven by playwright-core (launched as the
 * stats page's browser test does), against the real all-in-one server on PGlite, with the dashboard
 * built from source first (a fresh clone has no dist/). axe-core checks every screen (no serious or
 * critical violation). `UPDATE_SCREENSHOTS=1` also refreshes docs/screenshots/.
 */
const WEB = fileURLToPath(new URL("../../apps/web/", import.meta.url));
const SCREENSHOTS = fileURLToPath(new URL("../../docs/screenshots/", import.meta.url));
const SAVE_SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === "1";
const ADMIN_KEY = `shk_${"D".repeat(40)}`;
const PASSWORD = "dashboard test password";
const COUNTRY_HEADER = "x-test-country";
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

let server: RunningServer;
let browser: Chromium;
let page: Page;
let base: string;
const problems: string[] = [];
const axeReport: string[] = [];
const cleanups: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  // Build the dashboard as `pnpm start` does (vite build), so the test serves what users get.
  const vite = join(WEB, "node_modules", "vite", "bin", "vite.js");
  // NODE_ENV=production: vitest sets "test", which would bundle React's development build.
  const built = spawnSync(process.execPath, [vite, "build", "--logLevel", "warn"], { cwd: WEB, encoding: "utf8", env: { ...process.env, NODE_ENV: "production" } });
  if (built.status !== 0) throw new Error(`vite build failed:\n${built.stdout}\n${built.stderr}`);

  const storage = await openServerStorage();
  cleanups.push(() => storage.close());
  const port = await freePort();
  server = await startServer(
    // Destination health checks off: the screens' links point at hosts that do not exist here.
    parseEnv({ ...storage.settings, PORT: String(port), ADMIN_API_KEY: ADMIN_KEY, RATE_LIMIT_PER_MINUTE: "100000", GEO_COUNTRY_HEADER: COUNTRY_HEADER, HEALTH_CHECKS: "off" }),
    pino({ level: "silent" }),
  );
  base = `http://localhost:${port}`;

  browser = await openChromium({ viewport: { width: 1200, height: 860 }, deviceScaleFactor: 1, colorScheme: "light" });
  page = browser.page;
  page.on("pageerror", (e) => problems.push(e.message));
  // Network failures are judged by their responses below (a 401 before sign-in and the 422s of the
  // editor are expected); any other console error, script error or 5xx or unexpected 404 is a problem.
  page.on("console", (m) => {
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) problems.push(m.text());
  });
  page.on("response", (r) => {
    if (r.status() >= 500 || r.status() === 404) problems.push(`${r.status()} ${r.url()}`);
  });
  page.on("dialog", (dialog) => void dialog.accept());
  // A file-chooser listener from the start: Playwright turns Chromium's interception on when the first one
  // is added, asynchronously, so a listener added just before a key press could lose the race on a busy
  // machine (the imports test timed out so, twice in five runs at load average 10).
  page.on("filechooser", () => undefined);
  if (SAVE_SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  for (const cleanup of cleanups.reverse()) await cleanup();
  if (axeReport.length) console.log(`axe-core (serious/critical violations per screen):\n${axeReport.join("\n")}`);
});

type AxeResult = { violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown }> }> };

/** axe-core on the current screen (of `on`, the admin's page unless said): no serious or critical violation (every rule axe runs by default). */
async function checkAccessibility(screen: string, on: Page = page): Promise<void> {
  await on.evaluate(AXE_SOURCE);
  const result = (await on.evaluate(`axe.run(document, { resultTypes: ["violations"] })`)) as AxeResult;
  const severe = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  axeReport.push(`  ${screen}: ${severe.length} (minor/moderate: ${result.violations.length - severe.length})`);
  expect(
    severe.map((v) => `${v.id} (${v.impact}): ${JSON.stringify(v.nodes.map((n) => n.target))}`),
    screen,
  ).toEqual([]);
}

/** In the page: the deepest element that reaches past the viewport's right edge, as tag.class, for a failure's message. */
const WIDEST_ELEMENT = `(() => {
  const width = document.documentElement.clientWidth;
  const over = [...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > width + 1);
  const leaf = over.find((e) => ![...e.children].some((c) => over.includes(c))) ?? over[0];
  return leaf ? leaf.tagName.toLowerCase() + "." + String(leaf.className).replace(/ +/g, ".") + " " + Math.round(leaf.getBoundingClientRect().right) + "px: " + (leaf.textContent ?? "").slice(0, 60) : "none";
})()`;

/** Desktop and 390 px screenshots of a screen of `on` (the admin's page unless said; written to docs/screenshots/ with UPDATE_SCREENSHOTS=1), and nothing wider than the viewport. */
async function capture(name: string, options: { mask?: Locator[]; scrollTo?: Locator; scrollAt390?: Locator; on?: Page } = {}): Promise<void> {
  const target = options.on ?? page;
  // Back to the desktop size even when a check fails, so one screen's fault does not hide the next tests' navigation.
  try {
    for (const [suffix, viewport] of [
      ["desktop", { width: 1200, height: 860 }],
      ["390", { width: 390, height: 844 }],
    ] as const) {
      await target.setViewportSize(viewport);
      await target.waitForTimeout(50);
      if (suffix === "390") {
        // Charts take their width from a resize observer, a frame or more after the resize (longer on a busy machine): wait for the page to settle.
        const overflow = () => target.evaluate(`document.documentElement.scrollWidth - document.documentElement.clientWidth`) as Promise<number>;
        await expect
          .poll(overflow, { timeout: 5_000 })
          .toBeLessThanOrEqual(0)
          .catch(async () => {
            expect(await overflow(), `${name} scrolls sideways at 390 px (widest: ${await target.evaluate(WIDEST_ELEMENT)})`).toBeLessThanOrEqual(0);
          });
      }
      // A screen whose subject is below its top (a link's analytics): that part at the top of the picture.
      const scrollTo = suffix === "390" ? (options.scrollAt390 ?? options.scrollTo) : options.scrollTo;
      if (scrollTo) await scrollTo.evaluate((element) => element.scrollIntoView({ block: "start" }));
      const shot = await target.screenshot({ fullPage: false, type: "png", ...(options.mask ? { mask: options.mask } : {}) });
      expect(shot.length).toBeGreaterThan(1000);
      if (SAVE_SCREENSHOTS) await import("node:fs/promises").then((fs) => fs.writeFile(join(SCREENSHOTS, `${name}-${suffix}.png`), shot));
    }
  } finally {
    await target.setViewportSize({ width: 1200, height: 860 });
  }
}

/** A REST answer's `data` with the admin's key (the shared helper, bound to this file's server). */
const api = (method: string, path: string, form?: Record<string, string>): Promise<any> => apiData(base, ADMIN_KEY, method, path, form);

describe("the dashboard in a real browser", () => {
  it("serves the built app at /app/ with cached hashed assets, and the initial JS stays under 120 KB gzip (ADR 0034)", async () => {
    const res = await fetch(`${base}/app/links`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const html = await res.text();
    const scripts = [...html.matchAll(/src="(\/app\/assets\/[^"]+\.js)"/g)].map((m) => m[1] ?? "");
    expect(scripts.length).toBeGreaterThan(0);
    let gzipBytes = 0;
    for (const script of scripts) {
      const asset = await fetch(`${base}${script}`, { headers: { "accept-encoding": "gzip" } });
      expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(asset.headers.get("content-encoding")).toBe("gzip");
      // fetch decodes the body: measure the encoded length the server sent.
      gzipBytes += Number(asset.headers.get("content-length"));
      await asset.arrayBuffer();
    }
    console.log(`dashboard initial JS: ${(gzipBytes / 1024).toFixed(1)} KB gzip`);
    expect(gzipBytes).toBeGreaterThan(10_000);
    expect(gzipBytes).toBeLessThan(120 * 1024);
  });

  it("signs in once with the API key and sets a password, then signs in with it by keyboard only", async () => {
    const account = await api("GET", "/api/v1/account");
    await page.goto(`${base}/app/`);
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await checkAccessibility("sign in");
    await capture("sign-in");

    await page.getByRole("button", { name: /API key/ }).click();
    await page.getByLabel("API key").fill(ADMIN_KEY);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("heading", { name: "Choose a password" }).waitFor();
    await checkAccessibility("choose a password");
    await page.getByLabel("New password", { exact: true }).fill("short");
    await page.getByLabel("Repeat the new password").fill("short");
    await page.getByRole("button", { name: "Save password" }).click();
    // The browser's own check (minLength) or the API's 422 message: either way, still on this screen.
    await page.getByLabel("New password", { exact: true }).fill(PASSWORD);
    await page.getByLabel("Repeat the new password").fill(PASSWORD);
    await page.getByRole("button", { name: "Save password" }).click();
    await page.getByRole("heading", { name: "Links" }).waitFor();
    // This session was opened with the API key: it stays in the key's workspace (CONTRACT §24), so the top
    // bar names the workspace and the role, with no menu to switch.
    await expect.poll(() => page.getByTestId("workspace-current").innerText()).toMatch(/owner$/);
    expect(await page.getByTestId("workspace-current").evaluate((e) => e.tagName)).toBe("SPAN");
    expect(await page.getByRole("button", { name: /Switch workspace/ }).count()).toBe(0);

    // Sign out, then in again with email and password using the keyboard only.
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await page.getByLabel("Email").focus();
    await page.keyboard.type(account.email);
    await page.keyboard.press("Tab");
    await page.keyboard.type("wrong password");
    await page.keyboard.press("Enter");
    await page.getByText("Wrong email or password.").waitFor();
    await page.getByLabel("Password", { exact: true }).fill("");
    await page.getByLabel("Password", { exact: true }).focus();
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Links" }).waitFor();
    // A password session switches workspaces: the top bar's workspace is a button.
    await page.getByRole("button", { name: /Switch workspace/ }).waitFor();
    const cookies = await browser.cookies(base);
    const session = cookies.find((c) => c.name === "shortener_session");
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });
  }, 120_000);

  it("creates a link with country targeting, lists, filters and edits it, counts a visit from that country, and deletes in bulk", async () => {
    const [domain] = (await api("GET", "/api/v1/domains")) as Array<{ id: number; name: string }>;
    // A few more links so the list has something to filter away.
    for (const alias of ["other-one", "other-two"]) await api("POST", "/api/v1/links", { url: "https://example.org/other", domain_id: String(domain?.id), alias });

    await page.getByRole("link", { name: "New link" }).click();
    await page.getByRole("heading", { name: "New link" }).waitFor();
    // The API's 422 field messages show inline under their fields.
    await page.getByLabel("Destination URL").fill("javascript:alert(1)");
    await page.getByLabel("Alias").fill("app");
    await page.getByRole("button", { name: "Create link" }).click();
    await expect.poll(() => page.locator(".field .error").count()).toBeGreaterThanOrEqual(2);
    expect(
      await page
        .locator(".field", { has: page.getByLabel("Alias") })
        .locator(".error")
        .innerText(),
    ).toContain("reserved");
    await checkAccessibility("link editor (with errors)");

    await page.getByLabel("Destination URL").fill("https://example.com/welcome");
    await page.getByLabel("Alias").fill("e2e-country");
    await page.getByLabel("Title").fill("Country launch");
    await page.getByLabel("Target by").selectOption({ label: "Country" });
    await page.getByLabel("Country code").fill("de");
    await page.getByLabel("Destination for this entry").fill("https://example.de/willkommen");
    // The Open Graph preview link-preview bots are shown (CONTRACT §25).
    await page.getByLabel("Preview headline").fill("Willkommen!");
    await page.getByLabel("Preview image URL").fill("https://example.de/card.png");
    await capture("link-editor");
    await page.getByRole("button", { name: "Create link" }).click();
    await page.getByRole("heading", { name: "Country launch" }).waitFor();
    expect(await page.locator(".facts").innerText()).toContain("DE → https://example.de/willkommen");
    const linkId = Number(/\/app\/links\/(\d+)/.exec(page.url())?.[1]);
    expect(linkId).toBeGreaterThan(0);
    expect(await api("GET", `/api/v1/links/${linkId}`)).toMatchObject({ og_title: "Willkommen!", og_description: null, og_image: "https://example.de/card.png" });

    // The list shows it; search as you type and the status filter narrow it.
    await page.getByRole("link", { name: "Links", exact: true }).click();
    await page.getByRole("heading", { name: "Links" }).waitFor();
    await expect.poll(() => page.locator("table.links tbody tr").count()).toBe(3);
    await checkAccessibility("links list");
    await capture("links");
    await page.getByLabel("Search in").selectOption("alias");
    await page.getByLabel("Search", { exact: true }).fill("e2e");
    await expect.poll(() => page.locator("table.links tbody tr").count()).toBe(1);
    expect(await page.locator("table.links tbody tr").innerText()).toContain("Country launch");
    await page.getByLabel("Status").selectOption({ label: "Disabled" });
    await expect.poll(() => page.locator("table.links tbody tr").count()).toBe(0);
    await page.getByLabel("Status").selectOption({ label: "Active" });
    await expect.poll(() => page.locator("table.links tbody tr").count()).toBe(1);

    // Edit: a new title.
    await page.getByRole("link", { name: "Edit e2e-country" }).click();
    await page.getByRole("heading", { name: "Edit e2e-country" }).waitFor();
    await checkAccessibility("link editor");
    await page.getByLabel("Title").fill("Country launch, edited");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("heading", { name: "Country launch, edited" }).waitFor();

    // A visit from Germany goes to the German page and is counted.
    const visit = await fetch(`${base}/e2e-country`, { redirect: "manual", headers: { [COUNTRY_HEADER]: "DE", "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0 Safari/537.36" } });
    expect(visit.status).toBe(302);
    expect(visit.headers.get("location")).toBe("https://example.de/willkommen");
    await expect.poll(async () => (await api("GET", `/api/v1/links/${linkId}`)).clicks, { timeout: 15_000 }).toBe(1);
    await page.reload();
    await page.getByRole("heading", { name: "Country launch, edited" }).waitFor();
    await expect.poll(() => page.getByTestId("clicks").innerText()).toBe("1");
    await expect.poll(() => page.locator("figure.bars", { hasText: "Countries" }).innerText(), { timeout: 15_000 }).toContain("DE");
    await page.getByAltText(/QR code for/).waitFor();
    await checkAccessibility("link detail");
    await capture("link-detail");

    // Dark mode: the toggle, and the system's preference.
    await page.getByRole("button", { name: /Colour theme/ }).click();
    expect(await page.evaluate(`document.documentElement.dataset.theme`)).toBe("dark");
    await checkAccessibility("link detail (dark)");
    await capture("link-detail-dark");
    await page.getByRole("button", { name: /Colour theme/ }).click();
    await page.getByRole("button", { name: /Colour theme/ }).click();
    expect(await page.evaluate(`document.documentElement.dataset.theme ?? "system"`)).toBe("system");

    // The router (ADR 0034): an unknown path is the Not found screen; Back returns to the link.
    await page.goto(`${base}/app/no-such-screen`);
    await page.getByRole("heading", { name: "Not found" }).waitFor();
    await page.goBack();
    await page.getByRole("heading", { name: "Country launch, edited" }).waitFor();

    // Bulk: select the filtered-in link and the two others, delete them.
    await page.getByRole("link", { name: "Links", exact: true }).click();
    await expect.poll(() => page.locator("table.links tbody tr").count()).toBe(3);
    await page.getByLabel("Select every link on this page").check();
    await page.getByText("3 selected").waitFor();
    await page.getByRole("region", { name: "Bulk actions" }).getByRole("button", { name: "Disable" }).click();
    await expect.poll(async () => (await api("GET", `/api/v1/links/${linkId}`)).disabled).toBe(1);
    // The list's refetch after the change clears the selection: wait for it, or it may clear the next one.
    await expect.poll(() => page.locator("table.links .status-3").count(), { timeout: 10_000 }).toBe(3);
    await page.getByText("Select links for bulk actions").waitFor();
    await page.getByLabel("Select e2e-country").check();
    await page.getByLabel("Select other-one").check();
    await page.getByRole("region", { name: "Bulk actions" }).getByRole("button", { name: "Delete" }).click();
    await expect.poll(() => page.locator("table.links tbody tr").count(), { timeout: 10_000 }).toBe(1);
    expect(await page.locator("table.links tbody tr").innerText()).toContain("other-two");
    const remaining = (await api("GET", "/api/v1/links")) as Array<{ id: number; alias: string }>;
    expect(remaining.map((l) => l.alias)).toEqual(["other-two"]);

    // Destination health (CONTRACT §25): a link the worker found broken carries a Broken badge, and the Health filter finds it.
    await server.database.db
      .update(links)
      .set({ health: "broken", healthReason: "HTTP 404", healthCheckedAt: new Date() })
      .where(eq(links.id, remaining[0]?.id ?? 0));
    await page.reload();
    await expect.poll(() => page.locator("table.links .health-broken").count(), { timeout: 10_000 }).toBe(1);
    expect(await page.locator("table.links .health-broken").innerText()).toContain("Broken");
    await page.getByLabel("Health", { exact: true }).selectOption({ label: "OK" });
    await expect.poll(() => page.locator("table.links tbody tr").count()).toBe(0);
    await page.getByLabel("Health", { exact: true }).selectOption({ label: "Broken" });
    await expect.poll(() => page.locator("table.links tbody tr").count()).toBe(1);
    await page.getByLabel("Health", { exact: true }).selectOption({ label: "Any" });
  }, 180_000);

  it("at 390 × 844: the menu folds behind a Menu button (Escape closes it, focus handled), the filters behind Filters, and the first link row is on the first screen", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${base}/app/`);
      await page.getByRole("heading", { name: "Links" }).waitFor();
      const menu = page.getByRole("button", { name: "Menu" });
      const nav = page.getByRole("navigation", { name: "Main" });
      expect(await menu.getAttribute("aria-expanded")).toBe("false");
      expect(await nav.isVisible()).toBe(false);

      // The first link row is on the first screen, without scrolling, with the filters folded.
      const row = await page.locator("table.links tbody tr").first().boundingBox();
      expect(row).not.toBeNull();
      expect((row?.y ?? 0) + (row?.height ?? 0)).toBeLessThanOrEqual(844);
      expect(row?.y ?? -1).toBeGreaterThanOrEqual(0);
      expect(await page.getByLabel("Status").isVisible()).toBe(false);
      expect(await page.getByLabel("Search", { exact: true }).isVisible()).toBe(true);

      // By keyboard: Enter opens the menu and puts the focus on its first link; Escape closes it and gives the focus back.
      await menu.focus();
      await page.keyboard.press("Enter");
      expect(await menu.getAttribute("aria-expanded")).toBe("true");
      expect(await nav.isVisible()).toBe(true);
      expect(await page.evaluate(`document.activeElement?.textContent`)).toBe("Links");
      await checkAccessibility("menu open (390 px)");
      await page.keyboard.press("Escape");
      expect(await menu.getAttribute("aria-expanded")).toBe("false");
      expect(await nav.isVisible()).toBe(false);
      expect(await page.evaluate(`document.activeElement?.getAttribute("aria-controls")`)).toBe("main-menu");

      // Choosing a screen closes the menu; Sign out and the theme are in it too.
      await menu.click();
      expect(await page.getByRole("button", { name: "Sign out", exact: true }).isVisible()).toBe(true);
      await nav.getByRole("link", { name: "Domains" }).click();
      await page.getByRole("heading", { name: "Domains" }).waitFor();
      expect(await menu.getAttribute("aria-expanded")).toBe("false");
      // A tap outside the open menu closes it.
      await menu.click();
      await page.getByRole("heading", { name: "Domains" }).click();
      expect(await menu.getAttribute("aria-expanded")).toBe("false");

      // Filters: the button opens the panel and says how many are set.
      await menu.click();
      await nav.getByRole("link", { name: "Links", exact: true }).click();
      await page.getByRole("heading", { name: "Links" }).waitFor();
      const filters = page.getByRole("button", { name: /^Filters/ });
      expect(await filters.getAttribute("aria-expanded")).toBe("false");
      await filters.click();
      expect(await filters.getAttribute("aria-expanded")).toBe("true");
      await page.getByLabel("Status").selectOption({ label: "Active" });
      expect(await filters.innerText()).toBe("Filters (1 set)");
      await checkAccessibility("links with filters open (390 px)");
      await page.getByLabel("Status").selectOption({ label: "Any" });
      await filters.click();
      expect(await page.getByLabel("Status").isVisible()).toBe(false);
      if (SAVE_SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, "links-first-screen-390.png") });
    } finally {
      await page.setViewportSize({ width: 1200, height: 860 });
    }
  }, 60_000);

  it("analytics: a link's and the account's humans, unique visitors and bots a day (every day drawn), ranges, every breakdown, top links and orphan visits, by keyboard, light and dark, at 390 px", async () => {
    const account = await api("GET", "/api/v1/account");
    const [domain] = (await api("GET", "/api/v1/domains")) as Array<{ id: number; name: string }>;
    const create = (alias: string, title: string) => api("POST", "/api/v1/links", { url: `https://shop.example.com/${alias}`, domain_id: String(domain?.id), alias, title });
    const sale = (await create("spring-sale", "Spring sale")) as { id: number };
    const docs = (await create("docs", "Documentation")) as { id: number };
    const letter = (await create("newsletter", "Newsletter, issue 12")) as { id: number };
    // History: the rollup tables, as the visitor side's writes leave them (helper "visits"' write side is
    // not on this branch yet), for the 89 days before today; today: real visits through the redirect.
    const today = new Date().toISOString().slice(0, 10);
    const seeded = await seedAnalyticsHistory(server.database.db, {
      workspaceId: account.id, // the first start's admin: user 1, personal workspace 1
      today,
      days: 89,
      links: [
        { id: sale.id, weight: 40 },
        { id: docs.id, weight: 14 },
        { id: letter.id, weight: 6, quiet: true },
      ],
      domainId: domain?.id ?? 0,
    });
    const chrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
    for (const country of ["DE", "US", "FR"]) {
      const visit = await fetch(`${base}/spring-sale`, { redirect: "manual", headers: { [COUNTRY_HEADER]: country, "user-agent": chrome } });
      expect(visit.status).toBe(302);
    }
    // Today's bots through the real redirect too (redirected, never clicks): a HEAD request, a prefetch,
    // no User-Agent; and orphan visits of the domain: an unknown alias, twice.
    expect((await fetch(`${base}/spring-sale`, { method: "HEAD", redirect: "manual", headers: { "user-agent": chrome } })).status).toBe(302);
    expect((await fetch(`${base}/spring-sale`, { redirect: "manual", headers: { "user-agent": chrome, "sec-purpose": "prefetch" } })).status).toBe(302);
    expect((await fetch(`${base}/spring-sale`, { redirect: "manual", headers: { "user-agent": "" } })).status).toBe(302);
    for (let i = 0; i < 2; i += 1) expect((await fetch(`${base}/no-such-campaign`, { redirect: "manual", headers: { "user-agent": chrome } })).status).toBe(404);
    await expect.poll(async () => (await api("GET", `/api/v1/links/${sale.id}`)).clicks, { timeout: 15_000 }).toBe(3);
    const from30 = new Date(Date.parse(`${today}T00:00:00Z`) - 29 * 86_400_000).toISOString().slice(0, 10);
    const saleDays = seeded.perLink.get(sale.id) ?? [];
    const sale30 = sumDays(saleDays, from30, today);
    await expect.poll(async () => (await api("GET", `/api/v1/stats/${sale.id}?name=summary`)).bots, { timeout: 15_000 }).toBe(sale30.bots + 3);

    // One link: the summary, a point for every day of the range (the table has each), the breakdowns, bots by name.
    await page.goto(`${base}/app/links/${sale.id}`);
    await page.getByRole("heading", { name: "Analytics" }).waitFor();
    const rowsOfTable = page.locator(".time-chart").first().locator(".chart-table tbody tr");
    const figure = (title: string) => page.locator("figure.bars").filter({ has: page.locator("figcaption", { hasText: new RegExp(`^${title}$`) }) });
    await expect.poll(() => page.getByTestId("figure-humans").innerText()).toBe((sale30.humans + 3).toLocaleString("en-US"));
    expect(await page.getByTestId("figure-bots").innerText()).toBe((sale30.bots + 3).toLocaleString("en-US"));
    expect(await page.getByTestId("figure-unique").innerText()).toMatch(/^[\d,]+$/);
    expect(await rowsOfTable.count()).toBe(30);
    expect(await rowsOfTable.first().locator("th").textContent()).toBe(from30);
    expect(await rowsOfTable.last().locator("th").textContent()).toBe(today);
    // The chart draws all of them: a dot per day and series for ranges of up to 45 days.
    expect(await page.locator(".chart-frame .tone-humans .series-dot").count()).toBe(30);
    await expect.poll(() => figure("Countries").innerText()).toContain("Germany (DE)");
    expect(await figure("Bots").innerText()).toContain("Slackbot");
    for (const title of ["Platforms", "Browsers", "Devices", "Languages", "Referrers"]) expect(await figure(title).count()).toBe(1);

    // By keyboard: the chart takes the focus; the arrow keys, Home and End read one day at a time.
    const frame = page.locator(".chart-frame").first();
    await frame.focus();
    const readout = page.locator(".chart-readout").first();
    await page.keyboard.press("Home");
    const first = saleDays.find((d) => d.day === from30);
    expect(await readout.innerText()).toContain(`Humans: ${first?.humans.toLocaleString("en-US")}`);
    await page.keyboard.press("ArrowRight");
    const second = saleDays[saleDays.findIndex((d) => d.day === from30) + 1];
    expect(await readout.innerText()).toContain(`Bots: ${second?.bots.toLocaleString("en-US")}`);
    await page.keyboard.press("End");
    expect(await readout.innerText()).toMatch(/Humans: 3 · Unique visitors: 1 · Bots: 3$/);
    await checkAccessibility("link analytics");
    await capture("link-analytics", { scrollTo: page.locator("#link-analytics-title") });

    // Presets: 7 and 90 days (in the address bar), and a chosen range; a reversed one is refused inline.
    await page.getByRole("button", { name: "7 days" }).click();
    await expect.poll(() => rowsOfTable.count()).toBe(7);
    expect(page.url()).toContain("days=7");
    expect(await page.getByRole("button", { name: "7 days" }).getAttribute("aria-pressed")).toBe("true");
    await page.getByRole("button", { name: "90 days" }).click();
    await expect.poll(() => rowsOfTable.count()).toBe(90);
    await page.getByLabel("From", { exact: true }).fill("2026-01-10");
    await page.getByLabel("To", { exact: true }).fill("2026-01-01");
    await page.getByRole("button", { name: "Show range" }).click();
    await page.getByText("The start day must not be after the end day.").waitFor();
    const chosenFrom = new Date(Date.parse(`${today}T00:00:00Z`) - 20 * 86_400_000).toISOString().slice(0, 10);
    const chosenTo = new Date(Date.parse(`${today}T00:00:00Z`) - 8 * 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel("From", { exact: true }).fill(chosenFrom);
    await page.getByLabel("To", { exact: true }).fill(chosenTo);
    await page.getByLabel("To", { exact: true }).press("Enter");
    await expect.poll(() => rowsOfTable.count()).toBe(13);
    expect(page.url()).toContain(`from=${chosenFrom}&to=${chosenTo}`);
    await expect.poll(() => page.getByTestId("figure-humans").innerText()).toBe(sumDays(saleDays, chosenFrom, chosenTo).humans.toLocaleString("en-US"));

    // The quiet link: its zero days are points on the axis, not gaps.
    await page.goto(`${base}/app/links/${letter.id}?days=90`);
    await expect.poll(() => rowsOfTable.count()).toBe(90);
    const zeroDays = (seeded.perLink.get(letter.id) ?? []).filter((d) => d.humans === 0).length;
    expect(zeroDays).toBeGreaterThan(5);
    const zeroRows = await rowsOfTable.evaluateAll((rows) => rows.filter((r) => r.querySelector("td")?.textContent === "0").length);
    expect(zeroRows).toBe(zeroDays + 1);

    // The account: summary over every link, the chart, top links in order, breakdowns, orphan visits per domain.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Analytics" }).click();
    await page.getByRole("heading", { name: "Analytics", level: 1 }).waitFor();
    // Today's real visits reach the account's rollups once the visitor side writes them (helper "visits"):
    // the figure is the API's, and the API's is the seeded history plus at most today's few visits.
    const account30 = sumDays(seeded.account, from30, today);
    const accountSummary = (await api("GET", "/api/v1/stats?name=summary")) as { clicks: number; bots: number };
    expect(accountSummary.clicks - account30.humans).toBeGreaterThanOrEqual(0);
    expect(accountSummary.clicks - account30.humans).toBeLessThanOrEqual(4);
    await expect.poll(() => page.getByTestId("figure-humans").innerText()).toBe(accountSummary.clicks.toLocaleString("en-US"));
    expect(await page.getByTestId("figure-bots").innerText()).toBe(accountSummary.bots.toLocaleString("en-US"));
    expect(accountSummary.bots).toBeGreaterThanOrEqual(account30.bots);
    expect(await rowsOfTable.count()).toBe(30);
    await expect.poll(() => page.locator(".top-links tbody tr").count()).toBe(3);
    const top = await page.locator(".top-links tbody th a").allInnerTexts();
    expect(top.map((t) => t.split("/").pop())).toEqual(["spring-sale", "docs", "newsletter"]);
    await expect.poll(() => figure("Referrers").innerText()).toContain("news.ycombinator.com");
    const orphans = page.locator("table.orphans tbody tr", { hasText: domain?.name ?? "" });
    await expect.poll(async () => (await orphans.innerText()).replace(/\s+/g, " ")).not.toContain("…");
    await expect.poll(() => page.locator("figure.bars", { hasText: "Unknown aliases tried" }).innerText()).toContain("wp-login.php");
    expect(await page.locator(".orphan-detail .chart-table tbody tr").count()).toBe(30);
    await checkAccessibility("analytics");
    await capture("analytics", { scrollAt390: page.locator(".range-picker") });
    if (SAVE_SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, "analytics-full-desktop.png"), fullPage: true });
    await page.getByRole("button", { name: "90 days" }).click();
    await expect.poll(() => rowsOfTable.first().locator("th").textContent()).toBe(new Date(Date.parse(`${today}T00:00:00Z`) - 89 * 86_400_000).toISOString().slice(0, 10));
    // Today's two unknown-alias visits came through the redirect: the seeded history plus 2.
    await expect.poll(async () => (await orphans.innerText()).replace(/\s+/g, " ")).toContain((seeded.orphans.not_found + 2).toLocaleString("en-US"));
    await expect.poll(() => page.locator("figure.bars", { hasText: "Unknown aliases tried" }).innerText()).toContain("no-such-campaign");

    // Dark mode: the toggle; axe again, and the pictures.
    await page.getByRole("button", { name: /Colour theme/ }).click();
    expect(await page.evaluate(`document.documentElement.dataset.theme`)).toBe("dark");
    await checkAccessibility("analytics (dark)");
    await capture("analytics-dark", { scrollAt390: page.locator(".range-picker") });
    await page.goto(`${base}/app/links/${sale.id}`);
    await page.getByTestId("figure-humans").waitFor();
    await checkAccessibility("link analytics (dark)");
    await capture("link-analytics-dark", { scrollTo: page.locator("#link-analytics-title") });
    await page.getByRole("button", { name: /Colour theme/ }).click();
    await page.getByRole("button", { name: /Colour theme/ }).click();
    expect(await page.evaluate(`document.documentElement.dataset.theme ?? "system"`)).toBe("system");
    for (const id of [sale.id, docs.id, letter.id]) await api("DELETE", `/api/v1/links/${id}`);
  }, 180_000);

  it("API keys: creates a links:read key whose secret lists links but cannot create one, then deletes it by keyboard", async () => {
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    await page.getByText("No named keys yet.").waitFor();
    // The API's 422 messages show under their fields: no scope, and an expiry in the past.
    await page.getByLabel("Key name").fill("Reader");
    await page.getByRole("checkbox", { name: /^links:read/ }).uncheck();
    await page.getByLabel("Expires on (optional)").fill("2020-01-01");
    await page.getByRole("button", { name: "Create key" }).click();
    await expect.poll(() => page.locator(".field .error").innerText()).toContain("scopes must be a non-empty list");
    await checkAccessibility("api keys (with errors)");
    // By keyboard: the scope's checkbox with Space, the form with Enter.
    await page.getByRole("checkbox", { name: /^links:read/ }).focus();
    await page.keyboard.press("Space");
    await page.getByLabel("Key name").focus();
    await page.keyboard.press("Enter");
    await expect
      .poll(() =>
        page
          .locator(".field", { has: page.getByLabel("Expires on (optional)") })
          .locator(".error")
          .innerText(),
      )
      .toContain("in the future");
    await page.getByLabel("Expires on (optional)").fill("");
    await page.getByLabel("Key name").focus();
    await page.keyboard.press("Enter");
    const secret = await page.getByTestId("issued-key").innerText();
    expect(secret).toMatch(/^shk_/);
    await expect.poll(() => page.locator("table.keys tbody tr").count()).toBe(1);
    const row = await page.locator("table.keys tbody tr").innerText();
    expect(row).toContain("Reader");
    expect(row).toContain("links:read");
    expect(row).toContain(secret.slice(0, 8));
    expect(row).not.toContain("links:write");
    await checkAccessibility("api keys");
    await capture("api-keys", { mask: [page.getByTestId("issued-key")] });

    // The key lists links (links:read) and cannot create one (no links:write).
    const auth = { authorization: `Bearer ${secret}` };
    const list = await fetch(`${base}/api/v1/links`, { headers: auth });
    expect(list.status).toBe(200);
    const create = await fetch(`${base}/api/v1/links`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ url: "https://example.com/nope" }) });
    expect(create.status).toBe(403);
    await create.arrayBuffer();

    // Delete (the confirmation is accepted), by keyboard: the key stops working at once.
    await page.getByRole("button", { name: "Delete the key Reader" }).focus();
    await page.keyboard.press("Enter");
    await page.getByText("No named keys yet.").waitFor();
    expect((await fetch(`${base}/api/v1/links`, { headers: auth })).status).toBe(401);
  }, 120_000);

  it("webhooks: a refused URL shows inline, one is created with its secret shown once, disabled, enabled, its deliveries shown, edited in place, deleted", async () => {
    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.getByRole("heading", { name: "Webhooks" }).waitFor();
    await page.getByLabel("Endpoint URL").fill("http://127.0.0.1/hook");
    await page.getByRole("button", { name: "Add webhook" }).click();
    await page
      .locator(".field", { has: page.getByLabel("Endpoint URL") })
      .locator(".error")
      .waitFor();
    await checkAccessibility("webhooks (with errors)");

    const url = "https://hooks.example.com/e2e";
    await page.getByLabel("Endpoint URL").fill(url);
    await page.getByRole("checkbox", { name: "link.clicked" }).check();
    await page.getByRole("button", { name: "Add webhook" }).click();
    expect(await page.getByTestId("webhook-secret").innerText()).toMatch(/^whsec_/);
    const card = page.locator("li.card", { hasText: url });
    await card.waitFor();
    expect(await card.innerText()).toContain("link.created, link.clicked");
    const [hook] = (await api("GET", "/api/v1/webhooks")) as Array<{ url: string; events: string[]; disabled: number }>;
    expect(hook).toMatchObject({ url, events: ["link.created", "link.clicked"], disabled: 0 });

    await page.getByRole("button", { name: `Disable the webhook ${url}` }).click();
    await card.getByText("Disabled", { exact: true }).waitFor();
    await page.getByRole("button", { name: `Enable the webhook ${url}` }).click();
    await card.getByText("Enabled", { exact: true }).waitFor();
    await page.getByRole("button", { name: `Deliveries to ${url}` }).click();
    await card.getByText("No deliveries yet.").waitFor();
    await checkAccessibility("webhooks");
    await capture("webhooks", { mask: [page.getByTestId("webhook-secret")] });

    // Dark mode on a new screen too.
    await page.getByRole("button", { name: /Colour theme/ }).click();
    expect(await page.evaluate(`document.documentElement.dataset.theme`)).toBe("dark");
    await checkAccessibility("webhooks (dark)");
    await page.getByRole("button", { name: /Colour theme/ }).click();
    await page.getByRole("button", { name: /Colour theme/ }).click();

    // Edit in place, by keyboard: Enter on Edit puts the focus in the URL field; a refused URL shows inline.
    await page.getByRole("button", { name: `Edit the webhook ${url}` }).focus();
    await page.keyboard.press("Enter");
    const editor = page.getByRole("form", { name: `Edit the webhook ${url}` });
    await editor.waitFor();
    expect(await page.evaluate(`document.activeElement?.getAttribute("type")`)).toBe("url");
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.type("http://127.0.0.1/other");
    await page.keyboard.press("Enter");
    await editor
      .locator(".field", { has: page.getByLabel("Endpoint URL") })
      .locator(".error")
      .waitFor();
    await checkAccessibility("webhooks (editing, with errors)");
    const edited = "https://hooks.example.com/e2e-edited";
    await editor.getByLabel("Endpoint URL").fill(edited);
    await editor.getByRole("checkbox", { name: "link.created" }).uncheck();
    await editor.getByRole("checkbox", { name: "link.deleted" }).check();
    await editor.getByRole("checkbox", { name: "Enabled" }).uncheck();
    await editor.getByRole("button", { name: "Save webhook" }).click();
    const editedCard = page.locator("li.card", { hasText: edited });
    await editedCard.getByText("Disabled", { exact: true }).waitFor();
    await editor.waitFor({ state: "detached" });
    expect(await editedCard.innerText()).toContain("link.deleted, link.clicked");
    expect(await api("GET", "/api/v1/webhooks")).toMatchObject([{ url: edited, events: ["link.deleted", "link.clicked"], disabled: 1 }]);
    // Closing the editor gives the focus back to its button.
    expect(await page.evaluate(`document.activeElement?.getAttribute("aria-label")`)).toBe(`Edit the webhook ${edited}`);

    await page.getByRole("button", { name: `Delete the webhook ${edited}` }).click();
    await page.getByText("No webhooks yet.").waitFor();
    expect(await api("GET", "/api/v1/webhooks")).toEqual([]);
  }, 120_000);

  it("imports: uploads a CSV through the page by keyboard (a refused file shows inline), watches it finish, the rows become links, the errors CSV downloads", async () => {
    await page.getByRole("link", { name: "Imports" }).click();
    await page.getByRole("heading", { name: "Imports", exact: true }).waitFor();
    await page.getByText("No imports yet.").waitFor();
    const file = page.getByLabel("CSV file", { exact: true });
    const upload = page.getByRole("button", { name: "Upload", exact: true });

    // A file without a url column: the API's 422 under the file field, and nothing queued.
    await file.setInputFiles({ name: "wrong.csv", mimeType: "text/csv", buffer: Buffer.from("link,alias\nhttps://example.com/x,x\n") });
    await upload.click();
    await expect.poll(() => page.locator(".field", { has: file }).locator(".error").innerText()).toContain("no url column");
    await checkAccessibility("imports (with errors)");
    expect(await api("GET", "/api/v1/imports")).toEqual([]);

    // By keyboard: Space on the focused file input opens the file chooser; Enter on Upload sends it.
    const csv = "url,alias,title\nhttps://example.com/imported-one,e2e-imported-1,Imported one\nhttps://example.com/imported-two,e2e-imported-2,Imported two\nnot a url,e2e-broken,\n";
    await file.focus();
    const [chooser] = await Promise.all([page.waitForEvent("filechooser"), page.keyboard.press("Space")]);
    await chooser.setFiles({ name: "links.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    const [domain] = (await api("GET", "/api/v1/domains")) as Array<{ id: number; name: string }>;
    await page.getByLabel("Default domain").selectOption(String(domain?.id));
    await upload.focus();
    await page.keyboard.press("Enter");
    const queued = page.getByRole("status").filter({ hasText: /Import \d+ is queued/ });
    await queued.waitFor();
    const jobId = Number(/Import (\d+)/.exec(await queued.innerText())?.[1]);
    const [job] = (await api("GET", "/api/v1/imports")) as Array<{ id: number; domain_id: number; total_rows: number }>;
    expect(job).toMatchObject({ id: jobId, domain_id: domain?.id, total_rows: 3 });

    // Polled every second while the job runs: it reaches "completed" without a reload.
    const card = page.locator("li.card", { hasText: `Import ${jobId}` });
    await card.getByText("completed", { exact: true }).waitFor({ timeout: 30_000 });
    expect(await card.innerText()).toContain("3 of 3 rows");
    expect(await card.innerText()).toContain("2 links (0 skipped, 1 failed)");
    await page.getByRole("button", { name: `Row errors of import ${jobId}` }).click();
    await expect.poll(() => card.locator("table tbody tr").count()).toBe(1);
    expect(await card.locator("table tbody tr").innerText()).toMatch(/^4\s+url\s+\S/);
    // The errors file is REST's, fetched with the session cookie (a GET needs no CSRF header).
    const download = card.getByRole("link", { name: "Download the errors as CSV" });
    expect(await download.getAttribute("href")).toBe(`/api/v1/imports/${jobId}/errors`);
    const errorsFile = await page.evaluate(async (url) => {
      const res = await fetch(url);
      return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
    }, `/api/v1/imports/${jobId}/errors`);
    expect(errorsFile.status).toBe(200);
    expect(errorsFile.type).toBe("text/csv; charset=utf-8");
    expect(errorsFile.text).toMatch(/^line,field,message\r\n4,url,[^\r\n]+\r\n$/);
    await checkAccessibility("imports");
    await capture("imports");

    // The rows are links now: in the list, and visited.
    await page.getByRole("link", { name: "Links", exact: true }).click();
    await page.getByRole("heading", { name: "Links" }).waitFor();
    await page.getByLabel("Search in").selectOption("alias");
    await page.getByLabel("Search", { exact: true }).fill("e2e-imported");
    await expect.poll(() => page.locator("table.links tbody tr").count()).toBe(2);
    const rows = await page.locator("table.links tbody").innerText();
    expect(rows).toContain("Imported one");
    expect(rows).toContain("Imported two");
    const visit = await fetch(`${base}/e2e-imported-1`, { redirect: "manual" });
    expect(visit.status).toBe(302);
    expect(visit.headers.get("location")).toBe("https://example.com/imported-one");
  }, 120_000);

  it("teams: an admin creates a workspace, invites a colleague as editor; the colleague signs up through the link in another browser, sees the shared links, cannot manage members; roles are the server's to judge; back in the personal workspace the shared links are gone", async () => {
    const account = await api("GET", "/api/v1/account");
    const personalLinks = ((await api("GET", "/api/v1/links")) as Array<{ alias: string }>).map((l) => l.alias);
    expect(personalLinks.length).toBeGreaterThan(0);
    await page.goto(`${base}/app/`);
    await page.getByRole("heading", { name: "Links" }).waitFor();
    const switcher = page.getByRole("button", { name: /Switch workspace/ });
    expect(await switcher.getAttribute("aria-expanded")).toBe("false");
    expect(await switcher.innerText()).toContain("owner");

    // By keyboard: Enter opens the list with the focus on the current workspace; Escape closes it and gives the focus back.
    await switcher.focus();
    await page.keyboard.press("Enter");
    expect(await switcher.getAttribute("aria-expanded")).toBe("true");
    await expect.poll(() => page.evaluate(`document.activeElement?.getAttribute("aria-current")`)).toBe("true");
    await checkAccessibility("workspace switcher");
    if (SAVE_SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, "workspace-switcher-desktop.png") });
    await page.keyboard.press("Escape");
    expect(await switcher.getAttribute("aria-expanded")).toBe("false");
    expect(await page.evaluate(`document.activeElement?.dataset.testid`)).toBe("workspace-current");

    // A refused name shows under its field; then "Acme marketing", created and switched to, by keyboard.
    await page.keyboard.press("Enter");
    const newName = page.getByLabel("New workspace", { exact: true });
    await newName.fill("   ");
    await newName.press("Enter");
    await expect.poll(() => page.locator(".field", { has: newName }).locator(".error").innerText()).toContain("name");
    await newName.fill("");
    await newName.focus();
    await page.keyboard.type("Acme marketing");
    await page.keyboard.press("Enter");
    await expect.poll(() => switcher.innerText()).toMatch(/Acme marketing\s*owner/);
    expect(await switcher.getAttribute("aria-expanded")).toBe("false");
    // Every screen's data started afresh: the new workspace has no links yet.
    await page.getByText("No links match.").waitFor();

    // The shared workspace's own domain and two links, made through the screens.
    await page.getByRole("link", { name: "Domains" }).click();
    await page.getByLabel("New domain").fill("team.example.net");
    await page.getByRole("button", { name: "Add domain" }).click();
    await page.getByRole("heading", { name: "team.example.net" }).waitFor();
    for (const alias of ["team-launch", "team-docs"]) {
      await page.getByRole("link", { name: "Links", exact: true }).click();
      await page.getByRole("link", { name: "New link" }).click();
      await page.getByRole("heading", { name: "New link" }).waitFor();
      await expect.poll(() => page.getByLabel("Domain", { exact: true }).locator("option:checked").innerText()).toBe("team.example.net");
      await page.getByLabel("Destination URL").fill(`https://acme.example.com/${alias}`);
      await page.getByLabel("Alias").fill(alias);
      await page.getByRole("button", { name: "Create link" }).click();
      await page.getByRole("heading", { name: alias }).waitFor();
    }
    await page.getByRole("link", { name: "Links", exact: true }).click();
    await expect.poll(() => page.locator("table.links tbody tr").count()).toBe(2);

    // Members: the admin alone, as owner; an invitation for an editor, its link shown once.
    await page.getByRole("link", { name: "Members" }).click();
    await page.getByRole("heading", { name: "Members" }).waitFor();
    await expect.poll(() => page.getByTestId("member").count()).toBe(1);
    expect(await page.getByTestId("member").innerText()).toContain(account.email);
    await page.getByText("No invitations yet.").waitFor();
    // Roles offered: at most one's own (an owner: every one).
    expect(await page.getByLabel("Role", { exact: true }).locator("option").allInnerTexts()).toEqual(["viewer", "editor", "admin", "owner"]);
    await page.getByLabel("Role", { exact: true }).selectOption("editor");
    await page.getByLabel("Email (optional)").fill("colleague@example.test");
    await page.getByRole("button", { name: "Create invitation" }).click();
    const link = await page.getByTestId("invitation-link").innerText();
    expect(new URL(link).pathname).toMatch(/^\/app\/invite\/[A-Za-z0-9_-]{43}$/);
    expect(
      await page
        .getByRole("status")
        .filter({ has: page.getByTestId("invitation-link") })
        .innerText(),
    ).toContain("shown only now");
    // No SMTP_URL here: the page says the link was not mailed (the mail itself: apps/api/test/invitation-mail.db.test.ts).
    expect(await page.getByTestId("invitation-mailed").innerText()).toContain("Not mailed");
    await expect.poll(() => page.getByTestId("invitation").innerText()).toMatch(/an editor\s*colleague@example\.test[\s\S]*pending/);
    await checkAccessibility("members (admin)");

    // The colleague: another browser, signed in nowhere.
    const colleague = await openChromium({ viewport: { width: 1200, height: 860 }, deviceScaleFactor: 1, colorScheme: "light" });
    try {
      const them = colleague.page;
      them.on("pageerror", (e) => problems.push(`colleague: ${e.message}`));
      them.on("console", (m) => {
        if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) problems.push(`colleague: ${m.text()}`);
      });
      them.on("response", (r) => {
        if (r.status() >= 500 || r.status() === 404) problems.push(`colleague: ${r.status()} ${r.url()}`);
      });
      them.on("dialog", (dialog) => void dialog.accept());

      // A made-up token: the page says the invitation does not work, in the API's words.
      await them.goto(`${base}/app/invite/not-a-real-invitation-token`);
      await them.getByRole("heading", { name: "This invitation does not work" }).waitFor();
      expect(await them.getByRole("alert").innerText()).toContain("unknown or was revoked");

      // The real link: where it leads, then a new account, by keyboard.
      const invitePath = new URL(link).pathname;
      await them.goto(`${base}${invitePath}`);
      await them.getByRole("heading", { name: "Join Acme marketing" }).waitFor();
      expect(await them.getByTestId("invitation-summary").innerText()).toMatch(/invited you to the workspace Acme marketing as an editor/);
      expect(await them.getByLabel("Email").inputValue()).toBe("colleague@example.test");
      await checkAccessibility("invitation accept", them);
      await capture("invitation-accept", { on: them });
      await them.getByLabel("Your name").focus();
      await them.keyboard.type("Colleague Example");
      await them.keyboard.press("Tab");
      await them.keyboard.press("Tab");
      await them.keyboard.type("colleague password 1");
      await them.keyboard.press("Enter");

      // Signed in, acting in the shared workspace as an editor: its links are listed.
      await them.getByRole("heading", { name: "Links" }).waitFor();
      const theirSwitcher = them.getByRole("button", { name: /Switch workspace/ });
      await expect.poll(() => theirSwitcher.innerText()).toMatch(/Acme marketing\s*editor/);
      await expect.poll(() => them.locator("table.links tbody tr").count()).toBe(2);
      expect(await them.locator("table.links tbody").innerText()).toContain("team-launch");
      await them.getByRole("link", { name: "New link" }).waitFor();
      // An editor's menu: imports yes; webhooks and API keys (admins') no.
      const theirNav = them.getByRole("navigation", { name: "Main" });
      await theirNav.getByRole("link", { name: "Imports" }).waitFor();
      expect(await theirNav.getByRole("link", { name: "Webhooks" }).count()).toBe(0);
      expect(await theirNav.getByRole("link", { name: "API keys" }).count()).toBe(0);

      // Members: the list only; no invitations, no role or removal controls, just Leave.
      await theirNav.getByRole("link", { name: "Members" }).click();
      await them.getByRole("heading", { name: "Members" }).waitFor();
      await expect.poll(() => them.getByTestId("member").count()).toBe(2);
      expect(await them.getByText("Admins and owners manage its members, invitations and settings.").count()).toBe(1);
      expect(await them.getByRole("form", { name: "Invite someone" }).count()).toBe(0);
      expect(await them.getByRole("heading", { name: "Invitations" }).count()).toBe(0);
      expect(await them.getByRole("combobox").count()).toBe(0);
      expect(await them.getByRole("button", { name: /^Remove/ }).count()).toBe(0);
      await them.getByRole("button", { name: "Leave" }).waitFor();
      await checkAccessibility("members (editor)", them);
      // A screen of admins, opened by its address: it says so.
      await them.goto(`${base}/app/webhooks`);
      expect(await them.getByTestId("role-gate").innerText()).toContain("needs the admin role in the workspace Acme marketing; you are an editor");
      // The server is the judge whatever a screen shows: an editor's invitation is refused with its reason.
      const refused = await them.evaluate(async () => {
        const me = (await (await fetch("/trpc/auth.me")).json()) as { result: { data: { csrf_token: string } } };
        const current = (await (await fetch("/trpc/workspaces.current")).json()) as { result: { data: { id: number } } };
        const res = await fetch("/trpc/workspaces.invitations.create", {
          method: "POST",
          headers: { "content-type": "application/json", "x-csrf-token": me.result.data.csrf_token },
          body: JSON.stringify({ workspace_id: current.result.data.id, role: "viewer" }),
        });
        return { status: res.status, body: (await res.json()) as { error: { message: string } } };
      });
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toBe("This needs the admin role in this workspace; you are an editor.");

      // The link works once: opened again, it says so.
      await them.goto(`${base}${invitePath}`);
      await them.getByRole("heading", { name: "This invitation does not work" }).waitFor();

      // The admin sees them, and the invitation accepted; then makes them a viewer while their editor is open.
      await them.goto(`${base}/app/links/new`);
      await them.getByLabel("Destination URL").fill("https://acme.example.com/late");
      await page.reload();
      await page.getByRole("heading", { name: "Members" }).waitFor();
      await expect.poll(() => page.getByTestId("member").count()).toBe(2);
      await expect.poll(() => page.getByTestId("invitation").innerText()).toContain("accepted");
      const theirRole = page.getByLabel("Role of Colleague Example");
      expect(await theirRole.inputValue()).toBe("editor");
      await theirRole.selectOption("viewer");
      await expect.poll(() => page.getByLabel("Role of Colleague Example").inputValue()).toBe("viewer");
      await capture("members", { mask: [page.getByTestId("invitation-link")] });
      // Their screen still shows the form; the server refuses it and the page shows why.
      await them.getByRole("button", { name: "Create link" }).click();
      await expect.poll(() => them.getByRole("alert").first().innerText()).toBe("This needs the editor role in this workspace; you are a viewer.");
      // Afresh, a viewer's links screen has no way to change anything.
      await them.goto(`${base}/app/`);
      await expect.poll(() => them.locator("table.links tbody tr").count()).toBe(2);
      expect(await them.getByRole("link", { name: "New link" }).count()).toBe(0);
      expect(await them.getByRole("region", { name: "Bulk actions" }).count()).toBe(0);
      expect(await them.getByRole("link", { name: /^Edit / }).count()).toBe(0);
      await expect.poll(() => theirSwitcher.innerText()).toMatch(/Acme marketing\s*viewer/);

      // At 390 px the switcher is in the phone menu: its list opens in place, Escape closes only the list.
      await them.setViewportSize({ width: 390, height: 844 });
      const theirMenu = them.getByRole("button", { name: "Menu" });
      await theirMenu.click();
      await theirSwitcher.click();
      await them.getByRole("button", { name: /^Colleague Example/ }).waitFor();
      expect(await them.evaluate(`document.documentElement.scrollWidth - document.documentElement.clientWidth`)).toBeLessThanOrEqual(0);
      await checkAccessibility("workspace switcher (390 px)", them);
      if (SAVE_SCREENSHOTS) await them.screenshot({ path: join(SCREENSHOTS, "workspace-switcher-390.png") });
      await them.keyboard.press("Escape");
      expect(await theirSwitcher.getAttribute("aria-expanded")).toBe("false");
      expect(await theirMenu.getAttribute("aria-expanded")).toBe("true");
      await them.setViewportSize({ width: 1200, height: 860 });
    } finally {
      await colleague.close();
    }

    // The last owner cannot leave: the API's message shows.
    await page.getByRole("button", { name: "Leave" }).click();
    await expect.poll(() => page.getByRole("alert").first().innerText()).toContain("The last owner cannot leave the workspace");

    // Back to the personal workspace, by keyboard: the shared links are gone from the list.
    await page.getByRole("link", { name: "Links", exact: true }).click();
    await expect.poll(() => page.locator("table.links tbody tr").count()).toBe(2);
    await switcher.focus();
    await page.keyboard.press("Enter");
    const personal = page.getByRole("button", { name: new RegExp(`^${account.name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} personal`) });
    await personal.waitFor();
    await personal.press("Enter");
    // The switch is done when the switcher no longer names the shared workspace (it said "owner" there too).
    await expect.poll(() => switcher.innerText()).not.toContain("Acme marketing");
    expect(await switcher.innerText()).toMatch(/owner$/);
    await expect.poll(() => page.locator("table.links tbody tr").count()).toBe(personalLinks.length);
    const rows = await page.locator("table.links tbody").innerText();
    expect(rows).not.toContain("team-launch");
    expect(rows).not.toContain("team-docs");
    expect(problems).toEqual([]);
  }, 240_000);

  it("domains: adds one and shows its verification record; spaces, pixels and users; account: signs another device out, then everywhere", async () => {
    await page.getByRole("link", { name: "Domains" }).click();
    await page.getByRole("heading", { name: "Domains" }).waitFor();
    await page.getByLabel("New domain").fill("go.example.net");
    await page.getByRole("button", { name: "Add domain" }).click();
    await page.getByRole("heading", { name: "go.example.net" }).waitFor();
    // An admin's domain is verified at once (CONTRACT §14); the badge says so.
    expect(await page.locator("li.card", { hasText: "go.example.net" }).innerText()).toContain("Verified");
    // App links (CONTRACT §25): a file of the wrong shape shows its message inline; a good one is saved.
    const card = page.locator("li.card", { hasText: "go.example.net" });
    await card.locator("summary", { hasText: "App links" }).click();
    await card.getByLabel("assetlinks.json (JSON array)").fill('{"not": "an array"}');
    await card.getByRole("button", { name: "Save app links" }).click();
    await card.getByText("The asset_links must be a JSON array.").waitFor();
    await card.getByLabel("assetlinks.json (JSON array)").fill('[{"relation":["delegate_permission/common.handle_all_urls"]}]');
    await card.getByRole("button", { name: "Save app links" }).click();
    await card.getByRole("status").getByText("Saved.").waitFor();
    const saved = ((await api("GET", "/api/v1/domains")) as Array<{ name: string; asset_links: string | null }>).find((d) => d.name === "go.example.net");
    expect(saved?.asset_links).toBe('[{"relation":["delegate_permission/common.handle_all_urls"]}]');
    await checkAccessibility("domains");
    await capture("domains");

    // Spaces and pixels: created here, then offered by the link editor and the list's filters.
    await page.getByRole("link", { name: "Spaces" }).click();
    await page.getByRole("heading", { name: "Spaces" }).waitFor();
    await page.getByLabel("New space").fill("Launches");
    await page.getByLabel("Colour", { exact: true }).selectOption({ label: "Colour 3" });
    await page.getByRole("button", { name: "Add space" }).click();
    await page.getByRole("list").getByText("Launches").waitFor();
    await checkAccessibility("spaces");
    await capture("spaces");
    await page.getByRole("link", { name: "Pixels" }).click();
    await page.getByRole("heading", { name: "Pixels" }).waitFor();
    await page.getByLabel("Pixel name").fill("Ads");
    await page.getByLabel("Type", { exact: true }).selectOption("tiktok");
    await page.getByLabel("Pixel id").fill("not valid!");
    await page.getByRole("button", { name: "Add pixel" }).click();
    await page
      .locator(".field", { has: page.getByLabel("Pixel id") })
      .locator(".error")
      .waitFor();
    await page.getByLabel("Pixel id").fill("C4ABC123");
    await page.getByRole("button", { name: "Add pixel" }).click();
    await page.getByRole("list").getByText("Ads").waitFor();
    await checkAccessibility("pixels");
    await capture("pixels");
    await page.getByRole("link", { name: "New link" }).waitFor({ state: "detached" });
    await page.getByRole("link", { name: "Links", exact: true }).click();
    await expect.poll(() => page.getByLabel("Space", { exact: true }).locator("option").allInnerTexts()).toContain("Launches");
    await expect.poll(() => page.getByLabel("Pixel", { exact: true }).locator("option").allInnerTexts()).toContain("Ads");

    // Admin: a new user gets a first API key, shown once, that signs in to the dashboard once.
    await page.getByRole("link", { name: "Users" }).click();
    await page.getByRole("heading", { name: "Users" }).waitFor();
    await page.getByLabel("Email", { exact: true }).fill("second@example.test");
    await page.getByLabel("Name", { exact: true }).fill("Second User");
    await page.getByRole("button", { name: "Add user" }).click();
    const issuedKey = await page.getByTestId("issued-key").innerText();
    expect(issuedKey).toMatch(/^shk_/);
    await page.locator(".plain-list").getByText("second@example.test").waitFor();
    await checkAccessibility("users");
    // The key is a secret, even a test one: masked in the picture.
    await capture("users", { mask: [page.getByTestId("issued-key")] });
    const keySignIn = await fetch(`${base}/app/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: issuedKey }) });
    expect(keySignIn.status).toBe(200);
    expect(((await keySignIn.json()) as { data: { has_password: boolean } }).data.has_password).toBe(false);
    await page.getByRole("button", { name: "Delete second@example.test" }).click();
    await expect.poll(() => page.locator(".plain-list").getByText("second@example.test").count()).toBe(0);

    // A second device of the admin: a phone signed in with the password.
    const account = await api("GET", "/api/v1/account");
    const iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
    const phoneSignIn = await fetch(`${base}/app/session`, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": iPhone },
      body: JSON.stringify({ email: account.email, password: PASSWORD }),
    });
    expect(phoneSignIn.status).toBe(200);
    const phoneCookie = (phoneSignIn.headers.get("set-cookie") ?? "").split(";", 1)[0] ?? "";

    await page.getByRole("link", { name: "Account" }).click();
    await page.getByRole("heading", { name: "Account" }).waitFor();
    await page.getByTestId("session-current").waitFor();
    expect(await page.getByTestId("session-current").innerText()).toMatch(/Chrome on Linux\s*this browser/);
    await page.getByTestId("session").filter({ hasText: "Safari on iOS" }).waitFor();
    await checkAccessibility("account");
    await capture("account");
    // Signing the phone out from here: its row goes, and its cookie stops working.
    await page.getByRole("button", { name: /^Sign out Safari on iOS/ }).click();
    await expect.poll(() => page.getByTestId("session").filter({ hasText: "Safari on iOS" }).count()).toBe(0);
    expect((await fetch(`${base}/trpc/auth.me`, { headers: { cookie: phoneCookie } })).status).toBe(401);
    // Rotating the account's key from a password session (docs/adr/0033-session-bounds.md): the new key
    // shown once works, the old one is refused, this browser stays signed in. Last: ADMIN_KEY is gone.
    await page.getByRole("button", { name: "Rotate API key" }).click();
    const rotatedKey = await page.getByTestId("rotated-key").innerText();
    expect(rotatedKey).toMatch(/^shk_/);
    expect((await fetch(`${base}/api/v1/account`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).status).toBe(401);
    expect((await fetch(`${base}/api/v1/account`, { headers: { authorization: `Bearer ${rotatedKey}` } })).status).toBe(200);
    await page.getByTestId("session-current").waitFor();
    await page.getByRole("button", { name: "Sign out everywhere" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    const res = await fetch(`${base}/trpc/auth.me`, { headers: { cookie: (await browser.cookies(base)).map((c) => `${c.name}=${c.value}`).join("; ") } });
    expect(res.status).toBe(401);
    expect(problems).toEqual([]);
  }, 120_000);
});
