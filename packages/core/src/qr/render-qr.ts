import { createHash } from "node:crypto";
import { crc32, deflateSync } from "node:zlib";
import QRCode from "qrcode";
import { ValidationError } from "../errors.ts";
import type { QrFormat, QrOptions } from "./schemas.ts";

/** A drawn QR code: the bytes of the image and what HTTP needs to send it. */
export type QrImage = { format: QrFormat; contentType: "image/svg+xml" | "image/png"; body: Buffer; etag: string };

/**
 * Draws the QR code of `text` (a link's `short_url`). The code itself — data mode, version, error
 * correction, masking — comes from the `qrcode` library; both images are drawn here from its module
 * matrix, on one pixel grid (docs/adr/0016-link-tools.md):
 * - the library's PNG writer spends ~300 ms of one core on a 2048 px image (an RGBA pixel loop and a
 *   16 MB deflate), which would stall every other request of the process; a 1-bit PNG takes ~5 ms;
 * - the library's SVG draws modules in fractional pixels, and at 64 px (under 2 px a module) Chromium's
 *   rendering of it is not readable by a decoder at ecc H; this SVG puts every module edge on a whole
 *   pixel at its declared size, so it renders exactly like the PNG, and scales as any vector does.
 *
 * The image is exactly `size` pixels wide; a size that cannot give each module (and quiet-zone
 * module) at least one pixel is a 422 naming the smallest size that works.
 */
export function renderQr(text: string, options: QrOptions): QrImage {
  const qr = QRCode.create(text, { errorCorrectionLevel: options.ecc });
  const units = qr.modules.size + 2 * options.margin;
  if (options.size < units) {
    throw ValidationError.field("size", `The size must be at least ${units} pixels for this link's code with margin ${options.margin} and ecc ${options.ecc}.`);
  }
  if (options.format === "png") {
    const body = drawPng(qr.modules, options.size, options.margin);
    return { format: "png", contentType: "image/png", body, etag: etagOf(body) };
  }
  const body = Buffer.from(drawSvg(qr.modules, options.size, options.margin), "utf8");
  return { format: "svg", contentType: "image/svg+xml", body, etag: etagOf(body) };
}

/**
 * Module u of a `units`-wide grid covers pixels [edge(u), edge(u + 1)): pixel x falls on unit
 * ⌊x·units/size⌋ (the library's own mapping), so modules are ⌊size/units⌋ or ⌈size/units⌉ pixels wide.
 */
function edgeOf(u: number, units: number, size: number): number {
  return Math.ceil((u * size) / units);
}

/** The SVG: a white square and one path of dark runs, each a rectangle on whole pixels. */
function drawSvg(modules: QRCode.BitMatrix, size: number, margin: number): string {
  const n = modules.size;
  const units = n + 2 * margin;
  const parts: string[] = [];
  for (let row = 0; row < n; row++) {
    const y0 = edgeOf(row + margin, units, size);
    const h = edgeOf(row + margin + 1, units, size) - y0;
    for (let col = 0; col < n; col++) {
      if (!modules.get(row, col)) continue;
      const start = col;
      while (col + 1 < n && modules.get(row, col + 1)) col++;
      const x0 = edgeOf(start + margin, units, size);
      const w = edgeOf(col + margin + 1, units, size) - x0;
      parts.push(`M${x0} ${y0}h${w}v${h}h-${w}z`);
    }
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges">` +
    `<rect width="${size}" height="${size}" fill="#fff"/><path fill="#000" d="${parts.join("")}"/></svg>`
  );
}

function etagOf(body: Buffer): string {
  return `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`;
}

/**
 * A `size` × `size` PNG, greyscale at 1 bit a pixel (0 black, 1 white), of the module matrix with a quiet
 * zone of `margin` modules. Pixel x falls on unit ⌊x·units/size⌋, as the library's own renderer maps
 * them, so modules are ⌊size/units⌋ or ⌈size/units⌉ pixels wide. Rows of one module row are identical:
 * each is built once.
 */
function drawPng(modules: QRCode.BitMatrix, size: number, margin: number): Buffer {
  const n = modules.size;
  const units = n + 2 * margin;
  const rowBytes = Math.ceil(size / 8);
  const unitOf = new Int32Array(size);
  for (let x = 0; x < size; x++) unitOf[x] = Math.floor((x * units) / size) - margin;

  const lineOf = (my: number): Buffer => {
    // A filter byte (0: none), then the row's bits, most significant first; the padding bits are white.
    const line = Buffer.alloc(1 + rowBytes, 0xff);
    line[0] = 0;
    if (my < 0 || my >= n) return line;
    for (let x = 0; x < size; x++) {
      const mx = unitOf[x] as number;
      if (mx >= 0 && mx < n && modules.get(my, mx)) {
        const i = 1 + (x >> 3);
        line[i] = (line[i] as number) & ~(0x80 >> (x & 7));
      }
    }
    return line;
  };

  const raw = Buffer.allocUnsafe(size * (1 + rowBytes));
  let previousUnit = Number.NaN;
  let line: Buffer = Buffer.alloc(0);
  for (let y = 0; y < size; y++) {
    const my = unitOf[y] as number;
    if (my !== previousUnit) {
      line = lineOf(my);
      previousUnit = my;
    }
    line.copy(raw, y * (1 + rowBytes));
  }

  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // greyscale
  header[10] = 0; // deflate
  header[11] = 0; // adaptive filtering (each row says "none")
  header[12] = 0; // no interlace
  return Buffer.concat([PNG_SIGNATURE, chunk("IHDR", header), chunk("IDAT", deflateSync(raw, { level: 6 })), chunk("IEND", Buffer.alloc(0))]);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, "ascii");
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}
