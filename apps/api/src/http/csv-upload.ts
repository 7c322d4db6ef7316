import { createReadStream } from "node:fs";

/**
 * A file's text in parts of at least `minChars` (the last one shorter): bytes that are not UTF-8 become
 * U+FFFD (the rows holding them are reported as row errors, the rest of the file is imported), a
 * character split between two reads comes out whole, and the BOM is dropped.
 */
export async function* readTextParts(path: string, minChars: number): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8", { fatal: false });
  let pending = "";
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) {
    pending += decoder.decode(chunk as Buffer, { stream: true });
    if (pending.length >= minChars) {
      yield pending;
      pending = "";
    }
  }
  pending += decoder.decode();
  if (pending) yield pending;
}
