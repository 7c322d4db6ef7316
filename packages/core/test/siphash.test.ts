import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { sipHash24, sipKey } from "../src/visits/siphash.ts";
import { agentDigest, visitorHash, visitorKey, type VisitorSalt } from "../src/visits/visitor-salts.ts";
import { seededRandom } from "../src/testing/index.ts";

/** An independent implementation to compare with, byte string by byte string (the `siphash` package, BSD-2-Clause). */
const reference = createRequire(import.meta.url)("siphash") as { hash(key: Uint32Array, m: Uint8Array): { h: number; l: number } };

const u64 = (out: Uint32Array): bigint => (BigInt(out[1] as number) << 32n) | BigInt(out[0] as number);
const bytes = (n: number, from = 0): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (from + i) & 0xff);

describe("SipHash-2-4", () => {
  const key = sipKey(bytes(16));
  const out = new Uint32Array(2);

  it.each([
    // The reference vectors of the SipHash paper and its reference code (key 00…0f, message 00…n-1).
    [0, 0x726fdb47dd0e0e31n],
    [1, 0x74f839c593dc67fdn],
    [15, 0xa129ca6149be45e5n],
  ])("the reference vector of a %i-byte message", (n, expected) => {
    sipHash24(key, bytes(n), n, out);
    expect(u64(out)).toBe(expected);
  });

  it("agrees with an independent implementation on 2,000 random keys and messages of 0–300 bytes", () => {
    const random = seededRandom(2026);
    for (let round = 0; round < 2_000; round++) {
      const keyBytes = Uint8Array.from({ length: 16 }, () => Math.floor(random() * 256));
      const length = round < 64 ? round : Math.floor(random() * 301);
      const m = Uint8Array.from({ length }, () => Math.floor(random() * 256));
      const k = sipKey(keyBytes);
      sipHash24(k, m, length, out);
      const theirs = reference.hash(new Uint32Array(k), m);
      expect([out[1], out[0]], `key ${Buffer.from(keyBytes).toString("hex")}, message ${Buffer.from(m).toString("hex")}`).toEqual([theirs.h >>> 0, theirs.l >>> 0]);
    }
  });

  it("reads only the first `length` bytes of its buffer", () => {
    const m = bytes(64);
    sipHash24(key, m, 15, out);
    expect(u64(out)).toBe(0xa129ca6149be45e5n);
  });
});

describe("visitorHash", () => {
  const salt = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff" as VisitorSalt;
  const other = "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100" as VisitorSalt;
  const ua = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

  it("is 16 hex digits, the same from the salt or its key and from the User-Agent or its digest", () => {
    const h = visitorHash(salt, "203.0.113.7", ua, 42);
    expect(h).toMatch(/^[0-9a-f]{16}$/);
    expect(visitorHash(visitorKey(salt), "203.0.113.7", agentDigest(ua), 42)).toBe(h);
  });

  it("is the SipHash of the link, the User-Agent's digest and the group, high half first, as 16 zero-padded hex digits", () => {
    // Visitors written before an upgrade must meet the same visitors after it: the text may never change.
    const random = seededRandom(53);
    for (let round = 0; round < 500; round++) {
      const linkId = Math.floor(random() * 2 ** 31);
      const group = round % 2 ? `2001:db8:${round.toString(16)}::/64` : `198.51.100.${round % 256}`;
      const agent = agentDigest(`${ua} ${round}`);
      const m = new Uint8Array(12 + group.length);
      new DataView(m.buffer).setUint32(0, linkId, true);
      new DataView(m.buffer).setUint32(4, agent[0], true);
      new DataView(m.buffer).setUint32(8, agent[1], true);
      for (let i = 0; i < group.length; i++) m[12 + i] = group.charCodeAt(i);
      const theirs = reference.hash(new Uint32Array(visitorKey(salt).key), m);
      const expected = (theirs.h >>> 0).toString(16).padStart(8, "0") + (theirs.l >>> 0).toString(16).padStart(8, "0");
      expect(visitorHash(salt, group, agent, linkId)).toBe(expected);
    }
  });

  it("changes with every input: salt, group, User-Agent, link (and not with a User-Agent's characters past 512)", () => {
    const base = visitorHash(salt, "2001:db8:1:2::/64", ua, 1);
    const variants = [
      visitorHash(other, "2001:db8:1:2::/64", ua, 1),
      visitorHash(salt, "2001:db8:1:3::/64", ua, 1),
      visitorHash(salt, "2001:db8:1:2::/64", `${ua} `, 1),
      visitorHash(salt, "2001:db8:1:2::/64", ua, 2),
      visitorHash(salt, "2001:db8:1:2::/64", ua, 1 + 2 ** 24),
    ];
    expect(new Set([base, ...variants]).size).toBe(6);
    const long = "x".repeat(512);
    expect(visitorHash(salt, "g", `${long}a`, 1)).toBe(visitorHash(salt, "g", `${long}b`, 1));
  });

  it("takes any text as a group (non-ASCII goes through UTF-8) and any User-Agent, emoji and lone surrogates included", () => {
    const a = visitorHash(salt, "grüße", "ua", 1);
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(a).not.toBe(visitorHash(salt, "grusse", "ua", 1));
    expect(visitorHash(salt, "g".repeat(300), "ua", 1)).not.toBe(visitorHash(salt, "g".repeat(301), "ua", 1));
    expect(agentDigest("🙂 \ud800")).toHaveLength(2);
  });

  it("spreads visitors evenly: the first 32 bits of 20,000 hashes fill ten buckets within 5 % of a tenth each", () => {
    const buckets = new Array<number>(10).fill(0);
    const key = visitorKey(salt);
    const digest = agentDigest(ua);
    for (let i = 0; i < 20_000; i++) {
      const h = visitorHash(key, `198.51.${i >> 8}.${i & 0xff}`, digest, 7);
      const b = Math.floor((parseInt(h.slice(0, 8), 16) / 2 ** 32) * 10);
      buckets[b] = (buckets[b] as number) + 1;
    }
    for (const n of buckets) expect(Math.abs(n - 2_000)).toBeLessThan(100);
  });
});
