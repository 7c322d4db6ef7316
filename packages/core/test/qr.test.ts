import { describe, expect, it } from "vitest";
import { coerceFormValues, createQrCache, parseInput, QrOptionsInput, renderQr, ValidationError } from "../src/index.ts";

describe("QR options (CONTRACT §17)", () => {
  it("defaults: svg, 512 px, margin 2, ecc M; strings from forms and query strings are read", () => {
    expect(parseInput(QrOptionsInput, {})).toEqual({ format: "svg", size: 512, margin: 2, ecc: "M" });
    expect(parseInput(QrOptionsInput, coerceFormValues(QrOptionsInput, { format: "png", size: "64", margin: "0", ecc: "h" }))).toEqual({ format: "png", size: 64, margin: 0, ecc: "H" });
    expect(parseInput(QrOptionsInput, { size: 2048, margin: 16 })).toMatchObject({ size: 2048, margin: 16 });
  });

  it.each([
    [{ size: 63 }, "size"],
    [{ size: 2049 }, "size"],
    [{ size: "12px" }, "size"],
    [{ margin: 17 }, "margin"],
    [{ ecc: "Z" }, "ecc"],
    [{ format: "jpeg" }, "format"],
    [{ format: ["svg"] }, "format"],
  ])("%j is refused on %s", (input, field) => {
    try {
      parseInput(QrOptionsInput, input);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect(Object.keys((error as ValidationError).fields)).toEqual([field]);
    }
  });
});

describe("renderQr and its cache", () => {
  it("draws images of exactly the size asked; the SVG puts every module on whole pixels", () => {
    for (const size of [64, 100, 512, 2048]) {
      const png = renderQr("https://s.example/abc", { format: "png", size, margin: 2, ecc: "M" });
      expect([png.body.readUInt32BE(16), png.body.readUInt32BE(20), png.body[24], png.body[25]]).toEqual([size, size, 1, 0]);
      const svg = renderQr("https://s.example/abc", { format: "svg", size, margin: 2, ecc: "M" }).body.toString();
      expect(svg).toContain(`viewBox="0 0 ${size} ${size}"`);
      expect(svg).not.toMatch(/\d\.\d/);
    }
  });

  it("keys images by text and options: another short_url is another image", () => {
    const cache = createQrCache({ maxBytes: 1024 * 1024 });
    const options = { format: "svg", size: 512, margin: 2, ecc: "M" } as const;
    const a = cache.get("https://s.example/a", options);
    expect(cache.get("https://s.example/a", options)).toBe(a);
    const b = cache.get("https://s.example/b", options);
    expect(b.etag).not.toBe(a.etag);
    expect(cache.get("https://s.example/a", { ...options, ecc: "H" }).etag).not.toBe(a.etag);
    expect(cache.size).toBe(3);
  });

  it("stays within its byte bound", () => {
    const cache = createQrCache({ maxBytes: 20_000 });
    for (let i = 0; i < 200; i++) cache.get(`https://s.example/${i}`, { format: "svg", size: 512, margin: 2, ecc: "M" });
    expect(cache.size).toBeGreaterThan(0);
    expect(cache.size).toBeLessThan(200);
  });
});
