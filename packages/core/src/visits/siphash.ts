/*
 * SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF", 2012): a keyed 64-bit hash made
 * for short inputs under a secret 128-bit key. The visitor of a visit is one (ADR 0053): a few dozen bytes
 * per visit, where SHA-256 over the salt and the whole User-Agent cost four compression blocks, a buffer
 * and a hex string per visit (~10,000 instructions, a tenth of a visit).
 *
 * JavaScript has no 64-bit integers outside BigInt, so each 64-bit word is two 32-bit halves (`…l` low,
 * `…h` high), kept in local variables; nothing is allocated per call. Checked against the
 * reference vectors and, byte string by byte string, against an independent implementation (the `siphash`
 * package) in packages/core/test/siphash.test.ts.
 */

/** A 128-bit SipHash key as four little-endian 32-bit words: k0 low, k0 high, k1 low, k1 high. */
export type SipKey = Uint32Array & { readonly __sipKey: true };

/** Little-endian 32-bit word of `m` at `i` (signed: every value here stays a 32-bit integer). */
function word(m: Uint8Array, i: number): number {
  return (m[i] as number) | ((m[i + 1] as number) << 8) | ((m[i + 2] as number) << 16) | ((m[i + 3] as number) << 24);
}

/**
 * SipHash-2-4 of the first `length` bytes of `m` under `key`, written into `out` as [low, high] 32-bit
 * halves of the 64-bit result (the value the reference implementation returns as a little-endian u64).
 * One function with the state in local 32-bit integers (signed, as V8 keeps them untagged), the round
 * written once: word after word two rounds, then four to finish.
 */
export function sipHash24(key: SipKey, m: Uint8Array, length: number, out: Uint32Array): void {
  const k0l = (key[0] as number) | 0;
  const k0h = (key[1] as number) | 0;
  const k1l = (key[2] as number) | 0;
  const k1h = (key[3] as number) | 0;
  let v0l = k0l ^ 0x70736575;
  let v0h = k0h ^ 0x736f6d65;
  let v1l = k1l ^ 0x6e646f6d;
  let v1h = k1h ^ 0x646f7261;
  let v2l = k0l ^ 0x6e657261;
  let v2h = k0h ^ 0x6c796765;
  let v3l = k1l ^ 0x79746573;
  let v3h = k1h ^ 0x74656462;
  // Whole 8-byte words, then the last: the remaining 0–7 bytes and the length's low byte on top.
  const words = (length >>> 3) + 1;
  let ml = 0;
  let mh = 0;
  let lo = 0;
  let t = 0;
  for (let w = 0; w <= words; w++) {
    let rounds = 2;
    if (w < words - 1) {
      ml = word(m, 8 * w);
      mh = word(m, 8 * w + 4);
    } else if (w === words - 1) {
      ml = 0;
      mh = (length & 0xff) << 24;
      for (let i = 8 * w, j = 0; i < length; i++, j++) {
        if (j < 4) ml |= (m[i] as number) << (8 * j);
        else mh |= (m[i] as number) << (8 * (j - 4));
      }
    } else {
      // Finalization: no word, v2 ^= 0xff, four rounds.
      ml = 0;
      mh = 0;
      v2l ^= 0xff;
      rounds = 4;
    }
    v3l ^= ml;
    v3h ^= mh;
    for (let r = 0; r < rounds; r++) {
      // v0 += v1; v1 <<<= 13; v1 ^= v0; v0 <<<= 32
      lo = (v0l + v1l) | 0;
      v0h = (v0h + v1h + (lo >>> 0 < v0l >>> 0 ? 1 : 0)) | 0;
      v0l = lo;
      t = v1h;
      v1h = ((v1h << 13) | (v1l >>> 19)) ^ v0h;
      v1l = ((v1l << 13) | (t >>> 19)) ^ v0l;
      t = v0h;
      v0h = v0l;
      v0l = t;
      // v2 += v3; v3 <<<= 16; v3 ^= v2
      lo = (v2l + v3l) | 0;
      v2h = (v2h + v3h + (lo >>> 0 < v2l >>> 0 ? 1 : 0)) | 0;
      v2l = lo;
      t = v3h;
      v3h = ((v3h << 16) | (v3l >>> 16)) ^ v2h;
      v3l = ((v3l << 16) | (t >>> 16)) ^ v2l;
      // v0 += v3; v3 <<<= 21; v3 ^= v0
      lo = (v0l + v3l) | 0;
      v0h = (v0h + v3h + (lo >>> 0 < v0l >>> 0 ? 1 : 0)) | 0;
      v0l = lo;
      t = v3h;
      v3h = ((v3h << 21) | (v3l >>> 11)) ^ v0h;
      v3l = ((v3l << 21) | (t >>> 11)) ^ v0l;
      // v2 += v1; v1 <<<= 17; v1 ^= v2; v2 <<<= 32
      lo = (v2l + v1l) | 0;
      v2h = (v2h + v1h + (lo >>> 0 < v2l >>> 0 ? 1 : 0)) | 0;
      v2l = lo;
      t = v1h;
      v1h = ((v1h << 17) | (v1l >>> 15)) ^ v2h;
      v1l = ((v1l << 17) | (t >>> 15)) ^ v2l;
      t = v2h;
      v2h = v2l;
      v2l = t;
    }
    v0l ^= ml;
    v0h ^= mh;
  }
  out[0] = v0l ^ v1l ^ v2l ^ v3l;
  out[1] = v0h ^ v1h ^ v2h ^ v3h;
}

/** A key from 16 bytes (the first 16 of `bytes`). */
export function sipKey(bytes: Uint8Array): SipKey {
  if (bytes.length < 16) throw new Error("a SipHash key is 16 bytes");
  return Uint32Array.of(word(bytes, 0), word(bytes, 4), word(bytes, 8), word(bytes, 12)) as SipKey;
}
