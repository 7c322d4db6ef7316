import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { verifyWebhook } from "../src/index.ts";

const SECRET = "whsec_0123456789abcdefghijABCDEFGHIJ0123456789";
const BODY = '{"id":7,"type":"link.clicked","created_at":"2026-11-22T10:00:00.000Z","data":{"link_id":1,"clicks":3,"from":"2026-11-22T10:00:00.000Z","to":"2026-11-22T10:00:01.000Z"}}';
const now = () => Math.floor(Date.now() / 1000);
const mac = (t: number | string, body: string, secret = SECRET) => createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
const header = (t: number, body = BODY, secret = SECRET) => `t=${t},v1=${mac(t, body, secret)}`;

describe("verifyWebhook", () => {
  it("accepts a fresh signature of the exact body, as a string or as bytes, and a header array", () => {
    const t = now();
    expect(verifyWebhook(BODY, header(t), SECRET, 300)).toBe(true);
    expect(verifyWebhook(Buffer.from(BODY), header(t), SECRET, 300)).toBe(true);
    expect(verifyWebhook(new TextEncoder().encode(BODY), [header(t)], SECRET, 300)).toBe(true);
    expect(verifyWebhook(BODY, ` t=${t} , v1=${mac(t, BODY)} `, SECRET)).toBe(true);
  });

  it("accepts any one matching v1 (a secret being rotated), whatever its position", () => {
    const t = now();
    expect(verifyWebhook(BODY, `t=${t},v1=${mac(t, BODY, "whsec_old")},v1=${mac(t, BODY)}`, SECRET, 300)).toBe(true);
    expect(verifyWebhook(BODY, `v1=${mac(t, BODY)},t=${t},v0=ignored`, SECRET, 300)).toBe(true);
  });

  it.each([
    ["a tampered body", () => [BODY.replace('"clicks":3', '"clicks":4'), header(now())]],
    ["a body with one byte more", () => [`${BODY} `, header(now())]],
    ["a body re-serialised with other spacing", () => [JSON.stringify(JSON.parse(BODY), null, 1), header(now())]],
    ["the wrong secret", () => [BODY, header(now(), BODY, `${SECRET}x`)]],
    ["an old timestamp", () => [BODY, header(now() - 301)]],
    ["a timestamp from the future", () => [BODY, header(now() + 301)]],
    ["a timestamp changed after signing", () => [BODY, `t=${now() - 1},v1=${mac(now(), BODY)}`]],
    ["no header", () => [BODY, undefined]],
    ["an empty header", () => [BODY, ""]],
    ["no timestamp", () => [BODY, `v1=${mac(now(), BODY)}`]],
    ["no v1", () => [BODY, `t=${now()}`]],
    ["a v0 scheme only", () => [BODY, `t=${now()},v0=${mac(now(), BODY)}`]],
    ["a non-numeric timestamp", () => [BODY, `t=1e3,v1=${mac("1e3", BODY)}`]],
    ["a short v1", () => [BODY, `t=${now()},v1=${mac(now(), BODY).slice(0, 63)}`]],
    ["an upper-case v1", () => [BODY, `t=${now()},v1=${mac(now(), BODY).toUpperCase()}`]],
    ["a v1 that is not hex", () => [BODY, `t=${now()},v1=${"z".repeat(64)}`]],
  ])("refuses %s", (_name, make) => {
    const [body, sig] = make() as [string, string | undefined];
    expect(verifyWebhook(body, sig, SECRET, 300)).toBe(false);
  });

  it("refuses everything with an empty secret, and a signature made with an empty secret", () => {
    const t = now();
    expect(verifyWebhook(BODY, header(t, BODY, ""), "", 300)).toBe(false);
  });

  it("takes the tolerance it is given", () => {
    const t = now() - 30;
    expect(verifyWebhook(BODY, header(t), SECRET, 60)).toBe(true);
    expect(verifyWebhook(BODY, header(t), SECRET, 10)).toBe(false);
    expect(verifyWebhook(BODY, header(now() - 200), SECRET)).toBe(true);
    expect(verifyWebhook(BODY, header(now() - 400), SECRET)).toBe(false);
    expect(verifyWebhook(BODY, header(t), SECRET, Number.NaN)).toBe(false);
  });
});
