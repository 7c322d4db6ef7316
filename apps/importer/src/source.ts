import { Readable } from "node:stream";

/**
 * A stored file as a stream of ~64 KiB slices, so the CSV parser never holds more than a slice of it at
 * once. A slice never ends between the two halves of a surrogate pair (an emoji would turn into U+FFFD).
 */
export function readableOf(text: string, sliceSize = 64 * 1024): Readable {
  return Readable.from(
    (function* () {
      for (let i = 0; i < text.length; ) {
        let end = Math.min(i + sliceSize, text.length);
        const last = text.charCodeAt(end - 1);
        if (last >= 0xd800 && last <= 0xdbff && end < text.length) end++;
        yield text.slice(i, end);
        i = end;
      }
    })(),
  );
}
