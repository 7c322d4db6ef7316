import { spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, openServerStorage } from "@shortener/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * Issue 15 (docs/scaling.md): a deployment of two `SERVICES=redirect` processes and one `SERVICES=api`
 * process, real launchers (`node --import tsx launcher/src/main.ts`) on one fresh PostgreSQL database.
 * Links are made through the API; visits are sent concurrently to both redirect processes; the API then
 * reports every click of the plain link, and the click-limited link admitted exactly its limit across
 * both processes (CONTRACT §7.11), every other visitor getting the expired answer (§7.5: 410).
 *
 * Postgres only: two processes cannot share an embedded (PGlite) data folder.
 */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const MAIN = join(ROOT, "launcher/src/main.ts");
const ADMIN_KEY = `shk_${"S".repeat(40)}`;
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
/** Sent 3 to 2, interleaved (see the waves below). */
const PLAIN_VISITS = 300;
const LIMITED_VISITS = 200;
const LIMIT = 50;

type Launcher = { port: number; stop(): Promise<void> };
type Answer = { status: number; body: string };

const agent = new Agent({ keepAlive: true, maxSockets: 16 });
const launchers: Launcher[] = [];
let closeStorage: (() => Promise<void>) | undefined;

function send(port: number, options: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method: options.method ?? "GET", path: options.path, headers: options.headers ?? {}, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

async function startLauncher(settings: Record<string, string>): Promise<Launcher> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", MAIN], {
    cwd: ROOT,
    env: { ...process.env, ...settings, PORT: String(port), ADMIN_API_KEY: ADMIN_KEY, LOG_LEVEL: "warn", RATE_LIMIT_PER_MINUTE: "100000" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += String(chunk)));
  child.stderr?.on("data", (chunk) => (output += String(chunk)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const launcher: Launcher = {
    port,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
  launchers.push(launcher);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`launcher (${settings.SERVICES}) exited: ${output.slice(-2000)}`);
    const ready = await send(port, { path: "/readyz" }).catch(() => null);
    if (ready?.status === 200) return launcher;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`launcher (${settings.SERVICES}) did not get ready: ${output.slice(-2000)}`);
}

describe("two redirect processes and one API process on one database (Postgres only)", () => {
  let api: Launcher;
  let redirects: Launcher[];

  beforeAll(async () => {
    const storage = await openServerStorage();
    closeStorage = () => storage.close();
    // All three at once: they migrate the empty database in turn (under an advisory lock), and the first to
    // get there makes the admin, its key and a domain named after its own address.
    [api, ...redirects] = await Promise.all([
      startLauncher({ ...storage.settings, SERVICES: "api" }),
      startLauncher({ ...storage.settings, SERVICES: "redirect" }),
      startLauncher({ ...storage.settings, SERVICES: "redirect" }),
    ]);
  }, 120_000);

  afterAll(async () => {
    for (const launcher of launchers) await launcher.stop();
    agent.destroy();
    await closeStorage?.();
  });

  async function callApi(method: string, path: string, form?: Record<string, string>): Promise<any> {
    const res = await send(api.port, {
      method,
      path: `/api/v1${path}`,
      headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.body}`);
    return JSON.parse(res.body);
  }

  /** The link's counter and the sum of its daily clicks in the statistics (the rollups). */
  async function counted(id: number): Promise<{ clicks: number; stats: number; status: number }> {
    const link = (await callApi("GET", `/links/${id}`)).data;
    const days = (await callApi("GET", `/stats/${id}?name=clicks`)).data as Array<{ count: number }>;
    return { clicks: link.clicks, stats: days.reduce((n, d) => n + d.count, 0), status: link.status };
  }

  it(`${PLAIN_VISITS} visits to a plain link all count, and a link limited to ${LIMIT} clicks admits exactly ${LIMIT} of ${LIMITED_VISITS}`, { timeout: 60_000 }, async () => {
    const [domain] = (await callApi("GET", "/domains")).data;
    const host = domain.name as string;
    const plain = (await callApi("POST", "/links", { url: "https://add-up.example/plain", domain_id: String(domain.id), alias: "plain" })).data;
    const limited = (await callApi("POST", "/links", { url: "https://add-up.example/limited", domain_id: String(domain.id), alias: "limited", expiration_clicks: String(LIMIT) })).data;

    // Waves of 50 visits all in flight at once (30 to the plain link, 20 to the limited one, interleaved),
    // each visit to the next redirect process in turn: both processes admit visitors of the limited link
    // from the first wave on, and race each other for its last admissions.
    const WAVE = 50;
    const order = Array.from({ length: PLAIN_VISITS + LIMITED_VISITS }, (_, i) => ({ alias: i % 5 < 3 ? "plain" : "limited", process: i % 2 }));
    const answers: Array<(typeof order)[number] & Answer> = [];
    for (let start = 0; start < order.length; start += WAVE) {
      const wave = order.slice(start, start + WAVE);
      answers.push(
        ...(await Promise.all(wave.map(async (v) => ({ ...v, ...(await send((redirects[v.process] as Launcher).port, { path: `/${v.alias}`, headers: { host, "user-agent": BROWSER } })) })))),
      );
    }
    const tally = (alias: string, status: number, process?: number) => answers.filter((a) => a.alias === alias && a.status === status && (process === undefined || a.process === process)).length;

    expect(tally("plain", 302)).toBe(PLAIN_VISITS);
    expect(tally("limited", 302)).toBe(LIMIT);
    expect(tally("limited", 410)).toBe(LIMITED_VISITS - LIMIT);
    // Each redirect process took its share of both links, and admitted some of the limited link's visitors.
    for (const process of [0, 1]) {
      expect(tally("plain", 302, process)).toBe(PLAIN_VISITS / 2);
      expect(tally("limited", 302, process) + tally("limited", 410, process)).toBe(LIMITED_VISITS / 2);
      expect(tally("limited", 302, process)).toBeGreaterThan(0);
    }
    console.log(
      `limited link admitted ${tally("limited", 302, 0)} + ${tally("limited", 302, 1)} visitors on the two redirect processes; ` + `${tally("limited", 410, 0)} + ${tally("limited", 410, 1)} got 410`,
    );

    // Clicks are written once a second by each redirect process: wait until the API sees them all.
    const want = { plain: { clicks: PLAIN_VISITS, stats: PLAIN_VISITS, status: 1 }, limited: { clicks: LIMIT, stats: LIMIT, status: 2 } };
    let seen = { plain: await counted(plain.id), limited: await counted(limited.id) };
    for (const deadline = Date.now() + 15_000; Date.now() < deadline && JSON.stringify(seen) !== JSON.stringify(want);) {
      await new Promise((r) => setTimeout(r, 250));
      seen = { plain: await counted(plain.id), limited: await counted(limited.id) };
    }
    expect(seen).toEqual(want);
    // And nothing more arrives after another flush of each process.
    await new Promise((r) => setTimeout(r, 1_500));
    expect({ plain: await counted(plain.id), limited: await counted(limited.id) }).toEqual(want);
  });
});
