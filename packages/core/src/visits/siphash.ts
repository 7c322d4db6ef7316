/*
 * SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF", 2012): a keyed 64-bit hash made
 * for short inputs under a secret 128-bit key. The visitor of a visit is one (ADR 0053): a few dozen bytes
 * per visit, where SHA-256 over the salt and the whole User-Agent cost four compression blocks, a buffer
 * and a hex string per visit (~10,000 instructions, a tenth of a visit).
 *
 * JavaScript has no 64-bit integers outside BigInt, so each 64-bit word is two 32-bit halves (`…l` low,
 * `…h` high) and the state lives in one typed array; nothing is allocated per call. Checked against the
 * reference vectors and, byte string by byte string, against an independent implementation (the `siphash`
 * package) in packages/core/test/siphash.test.ts.
 */

/** A 128-bit SipHash key as four little-endian 32-bit words: k0 low, k0 high, k1 low, k1 high. */
export type SipKey = Uint32Array & { readonly __sipKey: true };

/** v0l, v0h, v1l, v1h, v2l, v2h, v3l, v3h. */
const v = new Uint32Array(8);

/** `n` SipRounds on the state. */
function sipRounds(n: number): void {
  let v0l = v[0] as number;
  let v0h = v[1] as number;
  let v1l = v[2] as number;
  let v1h = v[3] as number;
  let v2l = v[4] as number;
  let v2h = v[5] as number;
  let v3l = v[6] as number;
  let v3h = v[7] as number;
  let s: number;
  let t: number;
  for (let r = 0; r < n; r++) {
    // v0 += v1; v1 <<<= 13; v1 ^= v0; v0 <<<= 32
    s = v0l + v1l;
    v0h = (v0h + v1h + (s > 0xffffffff ? 1 : 0)) >>> 0;
    v0l = s >>> 0;
    t = v1h;
    v1h = ((v1h << 13) | (v1l >>> 19)) ^ v0h;
    v1l = ((v1l << 13) | (t >>> 19)) ^ v0l;
    t = v0h;
    v0h = v0l;
    v0l = t;
    // v2 += v3; v3 <<<= 16; v3 ^= v2
    s = v2l + v3l;
    v2h = (v2h + v3h + (s > 0xffffffff ? 1 : 0)) >>> 0;
    v2l = s >>> 0;
    t = v3h;
    v3h = ((v3h << 16) | (v3l >>> 16)) ^ v2h;
    v3l = ((v3l << 16) | (t >>> 16)) ^ v2l;
    v1h >>>= 0;
    v1l >>>= 0;
    v3h >>>= 0;
    v3l >>>= 0;
    // v0 += v3; v3 <<<= 21; v3 ^= v0
    s = v0l + v3l;
    v0h = (v0h + v3h + (s > 0xffffffff ? 1 : 0)) >>> 0;
    v0l = s >>> 0;
    t = v3h;
    v3h = (((v3h << 21) | (v3l >>> 11)) ^ v0h) >>> 0;
    v3l = (((v3l << 21) | (t >>> 11)) ^ v0l) >>> 0;
    // v2 += v1; v1 <<<= 17; v1 ^= v2; v2 <<<= 32
    s = v2l + v1l;
    v2h = (v2h + v1h + (s > 0xffffffff ? 1 : 0)) >>> 0;
    v2l = s >>> 0;
    t = v1h;
    v1h = (((v1h << 17) | (v1l >>> 15)) ^ v2h) >>> 0;
    v1l = (((v1l << 17) | (t >>> 15)) ^ v2l) >>> 0;
    t = v2h;
    v2h = v2l;
    v2l = t;
  }
  v[0] = v0l;
  v[1] = v0h;
  v[2] = v1l;
  v[3] = v1h;
  v[4] = v2l;
  v[5] = v2h;
  v[6] = v3l;
  v[7] = v3h;
}

/** Absorbs one 64-bit message word (two rounds). */
function compress(ml: number, mh: number): void {
  v[6] = (v[6] as number) ^ ml;
  v[7] = (v[7] as number) ^ mh;
  sipRounds(2);
  v[0] = (v[0] as number) ^ ml;
  v[1] = (v[1] as number) ^ mh;
}

/** Little-endian 32-bit word of `m` at `i`. */
function word(m: Uint8Array, i: number): number {
  return ((m[i] as number) | ((m[i + 1] as number) << 8) | ((m[i + 2] as number) << 16) | ((m[i + 3] as number) << 24)) >>> 0;
}

/**
 * SipHash-2-4 of the first `length` bytes of `m` under `key`, written into `out` as [low, high] 32-bit
 * halves of the 64-bit result (the value the reference implementation returns as a little-endian u64).
 */
export function sipHash24(key: SipKey, m: Uint8Array, length: number, out: Uint32Array): void {
  const k0l = key[0] as number;
  const k0h = key[1] as number;
  const k1l = key[2] as number;
  const k1h = key[3] as number;
  v[0] = k0l ^ 0x70736575;
  v[1] = k0h ^ 0x736f6d65;
  v[2] = k1l ^ 0x6e646f6d;
  v[3] = k1h ^ 0x646f7261;
  v[4] = k0l ^ 0x6e657261;
  v[5] = k0h ^ 0x6c796765;
  v[6] = k1l ^ 0x79746573;
  v[7] = k1h ^ 0x74656462;
  const end = length - (length % 8);
  let i = 0;
  for (; i < end; i += 8) compress(word(m, i), word(m, i + 4));
  // The last word: the remaining 0–7 bytes, little-endian, and the length's low byte on top.
  let ml = 0;
  let mh = (length & 0xff) << 24;
  for (let j = 0; i + j < length; j++) {
    const b = m[i + j] as number;
    if (j < 4) ml |= b << (8 * j);
    else mh |= b << (8 * (j - 4));
  }
  compress(ml >>> 0, mh >>> 0);
  v[4] = (v[4] as number) ^ 0xff;
  sipRounds(4);
  out[0] = (v[0] as number) ^ (v[2] as number) ^ (v[4] as number) ^ (v[6] as number);
  out[1] = (v[1] as number) ^ (v[3] as number) ^ (v[5] as number) ^ (v[7] as number);
}

/** A key from 16 bytes (the first 16 of `bytes`). */
export function sipKey(bytes: Uint8Array): SipKey {
  if (bytes.length < 16) throw new Error("a SipHash key is 16 bytes");
  return Uint32Array.of(word(bytes, 0), word(bytes, 4), word(bytes, 8), word(bytes, 12)) as SipKey;
}
