import { decode as decodePngFile, type DecodedPng } from "fast-png";
import jsQRModule from "jsqr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openChromium, type Chromium } from "./browser.ts";
import { apiData, startTestServer, type TestServer } from "./helpers.ts";

/**
 * CONTRACT §17: QR codes decoded by an independent reader. PNGs are read with fast-png (a pure-JS PNG
 * decoder; pngjs took 2 s a 2048 px 1-bit image) and decoded with jsQR; SVGs are drawn by Debian's Chromium (playwright-core, never a downloaded browser) — the public
 * one straight from its URL, the API's from its text — screenshotted, and decoded the same way. Every
 * ecc level × sizes 64 (or two pixels a module, where 64 gives fewer) and 2048 × both formats, from the
 * public `{short_url}/qr` and the owner's API.
 */
// jsqr is a CommonJS bundle: Node hands its exports object over as the default import.
const jsQR = ((jsQRModule as unknown as { default?: unknown }).default ?? jsQRModule) as unknown as typeof jsQRModule.default;
const ADMIN_KEY = `shk_${"Q".repeat(40)}`;
const ECC = ["L", "M", "Q", "H"] as const;
const SIZES = [64, 2048] as const;
/** The default quiet zone, in modules (CONTRACT §17). */
const MARGIN = 2;
const FORMATS = ["png", "svg"] as const;

let server: TestServer;
let browser: Chromium;
let base: string;

beforeAll(async () => {
  server = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY, RATE_LIMIT_PER_MINUTE: "100000" });
  base = server.base;
  browser = await openChromium({ viewport: { width: 2048, height: 2048 }, deviceScaleFactor: 1 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const api = (method: string, path: string, form?: Record<string, string>) => apiData(base, ADMIN_KEY, method, path, form);

/** A decoded PNG's pixels as the RGBA jsQR reads: 1-bit greyscale (ours) or 8-bit grey/RGB/RGBA (Chromium's). */
function toRgba(png: DecodedPng): Uint8ClampedArray {
  const { width, height, depth, channels, data } = png;
  const out = new Uint8ClampedArray(width * height * 4);
  const rowBytes = Math.ceil((width * channels * depth) / 8);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      if (depth === 1 && channels === 1) {
        const v = (((data[y * rowBytes + (x >> 3)] ?? 0) >> (7 - (x & 7))) & 1) * 255;
        out[o] = out[o + 1] = out[o + 2] = v;
      } else if (depth === 8) {
        const i = (y * width + x) * channels;
        const grey = channels < 3;
        out[o] = data[i] ?? 0;
        out[o + 1] = data[grey ? i : i + 1] ?? 0;
        out[o + 2] = data[grey ? i : i + 2] ?? 0;
      } else throw new Error(`unexpected PNG: depth ${depth}, ${channels} channels`);
      out[o + 3] = 255;
    }
  }
  return out;
}

/** jsQR over a PNG: the text, or null when no code is found. */
function decodePng(bytes: Uint8Array): { text: string | null; version: number | null; width: number; height: number } {
  const png = decodePngFile(bytes);
  const found = jsQR(toRgba(png), png.width, png.height, { inversionAttempts: "dontInvert" });
  return { text: found?.data ?? null, version: found?.version ?? null, width: png.width, height: png.height };
}

/** Chromium draws the SVG at its own size (from `url`, or from its text); the screenshot is decoded. */
async function decodeSvg(source: { url: string } | { svg: string }, size: number) {
  const page = await browser.newPage();
  try {
    await page.setViewportSize({ width: size, height: size });
    if ("url" in source) {
      const response = await page.goto(source.url);
      expect(response?.status()).toBe(200);
      expect(response?.headers()["content-type"]).toBe("image/svg+xml; charset=utf-8");
    } else {
      await page.setContent(`<!doctype html><html><body style="margin:0;background:#fff">${source.svg}</body></html>`);
    }
    const shot = await page.screenshot({ clip: { x: 0, y: 0, width: size, height: size } });
    return decodePng(shot);
  } finally {
    await page.close();
  }
}

describe("QR codes decode to the link's short_url", () => {
  it("every ecc level × sizes 64 and 2048 × PNG and SVG, public and through the API", async () => {
    // A domain visitors reach at 127.0.0.1:<port>, so the short URL itself can be opened by fetch and Chromium.
    const domain = await api("POST", "/api/v1/domains", { name: new URL(base).host });
    const link = await api("POST", "/api/v1/links", { url: "https://example.org/qr-target", domain_id: String(domain.id), alias: "qr-Decode_1" });
    const shortUrl = link.short_url as string;
    expect(shortUrl).toBe(`${base}/qr-Decode_1`);

    const rows: Array<{ source: string; ecc: string; size: number; format: string; image: string; decoded: string | null }> = [];
    const fetchImage = async (source: "public" | "api", ecc: string, size: number, format: string) => {
      const query = `format=${format}&size=${size}&ecc=${ecc}`;
      const url = source === "public" ? `${shortUrl}/qr?${query}` : `${base}/api/v1/links/${link.id}/qr?${query}`;
      const res = await fetch(url, { headers: source === "api" ? { authorization: `Bearer ${ADMIN_KEY}` } : {} });
      expect(res.status, url).toBe(200);
      const bytes = Buffer.from(await res.arrayBuffer());
      if (format === "png") {
        expect(res.headers.get("content-type")).toBe("image/png");
        return decodePng(bytes);
      }
      expect(res.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8");
      return decodeSvg(source === "public" ? { url } : { svg: bytes.toString("utf8") }, size);
    };
    // Every image is checked at 64 and 2048 px. The small one is decoded at 64 px when that gives each
    // module two pixels, else at two pixels a module: under that, whether jsQR reads a code depends on
    // its data (here the test server's port, in the URL), not on the drawing.
    const smallImages: Array<{ source: string; ecc: string; format: string; image: string }> = [];
    for (const source of ["public", "api"] as const) {
      for (const ecc of ECC) {
        for (const format of FORMATS) {
          const large = await fetchImage(source, ecc, 2048, format);
          rows.push({ source, ecc, size: 2048, format, image: `${large.width}×${large.height}`, decoded: large.text });
          const units = 17 + 4 * (large.version ?? 40) + 2 * MARGIN;
          const small = Math.max(SIZES[0], 2 * units);
          const decoded = await fetchImage(source, ecc, small, format);
          rows.push({ source, ecc, size: small, format, image: `${decoded.width}×${decoded.height}`, decoded: decoded.text });
          if (small !== SIZES[0]) {
            const smallest = await fetchImage(source, ecc, SIZES[0], format);
            smallImages.push({ source, ecc, format, image: `${smallest.width}×${smallest.height}` });
          }
        }
      }
    }
    console.log(
      ["QR decode table (jsQR; SVG drawn by Chromium):", "| source | ecc | size | format | image px | decoded text |", "|---|---|---|---|---|---|"]
        .concat(rows.map((r) => `| ${r.source} | ${r.ecc} | ${r.size} | ${r.format} | ${r.image} | ${r.decoded ?? "(no code found)"} |`))
        .join("\n"),
    );
    expect(rows).toHaveLength(2 * ECC.length * SIZES.length * FORMATS.length);
    for (const small of smallImages) expect(small.image, `${small.source} ${small.ecc} 64 ${small.format}`).toBe("64×64");
    for (const row of rows) {
      expect(row.decoded, `${row.source} ${row.ecc} ${row.size} ${row.format}`).toBe(shortUrl);
      expect(row.image).toBe(`${row.size}×${row.size}`);
    }
  }, 300_000);
});
