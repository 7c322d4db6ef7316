import { randomBytes } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A cryptographically random base-62 string (rejection sampling: no modulo bias). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Random bytes drawn 1 KiB at a time, for `randomBase62Pooled`. */
const POOL_BYTES = 1024;
let pool = Buffer.alloc(0);
let poolAt = 0;

/**
 * `randomBase62` from a pool of random bytes kept in this process: the same alphabet and rejection
 * sampling, one `randomBytes` call per 1 KiB instead of one per string (4–6 µs each on this machine).
 * For values that are not secrets — random aliases, which are public once made. Keys, tokens and
 * webhook secrets keep `randomBase62`, whose bytes are never held in memory before use.
 */
export function randomBase62Pooled(length: number): string {
  let out = "";
  while (out.length < length) {
    if (poolAt >= pool.length) {
      pool = randomBytes(POOL_BYTES);
      poolAt = 0;
    }
    const byte = pool[poolAt++] as number;
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}
