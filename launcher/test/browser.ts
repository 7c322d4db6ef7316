import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

/**
 * The browser of the browser tests: Debian's Chromium (never a downloaded one) driven by playwright-core,
 * headless, in a profile folder of its own that `close()` removes.
 */
export const CHROMIUM = "/usr/bin/chromium";

/** Flags for a quiet headless run in a container: no sandbox, GPU, QUIC, first-run or background traffic. */
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export type Chromium = {
  context: BrowserContext;
  /** The page the browser opened with. */
  page: Page;
  newPage(): Promise<Page>;
  cookies: BrowserContext["cookies"];
  /** Closes the browser, then removes its profile. */
  close(): Promise<void>;
};

export async function openChromium(options: { viewport: { width: number; height: number }; deviceScaleFactor?: number; colorScheme?: "light" | "dark" }): Promise<Chromium> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: \`pnpm test\` installs it (tooling/ensure-chromium.mjs), as .ci/run does (apt-get install -y chromium)`);
  const profile = mkdtempSync(join(tmpdir(), "shortener-chromium-"));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, ...options });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    newPage: () => context.newPage(),
    cookies: (urls) => context.cookies(urls),
    async close() {
      try {
        await context.close();
      } finally {
        rmSync(profile, { recursive: true, force: true });
      }
    },
  };
}
