import { LRUCache } from "lru-cache";
import { renderQr, type QrImage } from "./render-qr.ts";
import type { QrOptions } from "./schemas.ts";

export type QrCacheOptions = { maxBytes: number };
export const DEFAULT_QR_CACHE: QrCacheOptions = { maxBytes: 16 * 1024 * 1024 };

/**
 * Drawn QR codes in memory (a bounded LRU, by bytes), keyed by the encoded text and every option. The
 * text is the link's `short_url`, so a link whose alias or domain changed simply asks for another key:
 * a stale image can never be served, and the old one ages out. Drawing is synchronous (a few ms at
 * most), so a miss needs no shared promise.
 */
export function createQrCache(options: QrCacheOptions = DEFAULT_QR_CACHE) {
  const images = new LRUCache<string, QrImage>({
    maxSize: options.maxBytes,
    sizeCalculation: (image, key) => image.body.length + key.length * 2 + 128,
  });
  return {
    /** The image, from memory or drawn now; a ValidationError when the size is too small for the code. */
    get(text: string, qr: QrOptions): QrImage {
      const key = `${qr.format}|${qr.size}|${qr.margin}|${qr.ecc}|${text}`;
      let image = images.get(key);
      if (!image) {
        image = renderQr(text, qr);
        images.set(key, image);
      }
      return image;
    },
    /** How many images are held (tests, metrics). */
    get size(): number {
      return images.size;
    },
  };
}

export type QrCache = ReturnType<typeof createQrCache>;
