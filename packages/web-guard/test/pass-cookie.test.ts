import { describe, expect, it } from "vitest";
import { issuePass, isValidPass, passCookieHeader, PASS_LIFETIME_SECONDS, readCookie } from "../src/index.ts";

const NOW = new Date("2026-11-22T10:00:00.000Z");
const base = { secret: "secret-1-secret-1-secret-1-secret-1", subject: "7", passwordHash: "hash-a" };
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);

describe("readCookie", () => {
  it.each([
    ["absent header", undefined, "pass_1", undefined],
    ["the only cookie", "pass_1=abc", "pass_1", "abc"],
    ["among others, with spaces", "a=1;  pass_1 = abc ; b=2", "pass_1", "abc"],
    ["a longer name is another cookie", "pass_12=nope; pass_1=yes", "pass_1", "yes"],
    ["a shorter name is another cookie", "pass_1=nope", "pass_12", undefined],
    ["a value with '='", "pass_1=a=b==", "pass_1", "a=b=="],
    ["no '='", "pass_1", "pass_1", undefined],
    ["empty value", "pass_1=", "pass_1", ""],
  ])("%s", (_name, header, name, expected) => {
    expect(readCookie(header, name)).toBe(expected);
  });
});

describe("signed passes with their own expiry (CONTRACT §15)", () => {
  const pass = issuePass({ ...base, now: NOW });

  it("carry their expiry, a day at most, and say so in Max-Age", () => {
    expect(pass.maxAge).toBe(PASS_LIFETIME_SECONDS);
    expect(pass.value).toMatch(/^\d{10}\.[A-Za-z0-9_-]{43}$/);
    expect(Number(pass.value.split(".")[0])).toBe(NOW.getTime() / 1000 + 86_400);
    expect(issuePass({ ...base, now: NOW, lifetimeSeconds: 10 * 86_400 }).maxAge).toBe(86_400);
    expect(passCookieHeader("pass_7", pass, "/abc", false)).toBe(`pass_7=${pass.value}; Path=/abc; Max-Age=86400; HttpOnly; SameSite=Lax`);
    expect(passCookieHeader("pass_7", pass, "/abc", true)).toBe(`pass_7=${pass.value}; Path=/abc; Max-Age=86400; HttpOnly; SameSite=Lax; Secure`);
  });

  const [expires = "", sig = ""] = pass.value.split(".");
  const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === "A" ? "B" : "A") + s.slice(i + 1);
  it.each([
    ["the pass, at once", pass.value, NOW, true],
    ["the pass, a second before it expires", pass.value, at(86_399), true],
    ["the pass, when it expires", pass.value, at(86_400), false],
    ["the pass, a year later", pass.value, at(365 * 86_400), false],
    ["a later expiry, same signature", `${Number(expires) + 3600}.${sig}`, NOW, false],
    ["an earlier expiry, same signature", `${Number(expires) - 3600}.${sig}`, NOW, false],
    ["one signature character changed", `${expires}.${flip(sig, 5)}`, NOW, false],
    ["the signature cut short", `${expires}.${sig.slice(1)}`, NOW, false],
    ["the signature without its expiry", sig, NOW, false],
    ["the old format (an HMAC without expiry)", "iOdv-Au-idvt6UvGqKB7aBdx0-y5XlOyXyYVM3g9R_c", NOW, false],
    ["empty", "", NOW, false],
    ["absent", undefined, NOW, false],
    ["far-future expiry", `99999999999.${sig}`, NOW, false],
    ["a negative expiry", `-1.${sig}`, NOW, false],
    ["padding after", `${pass.value} `, NOW, false],
    ["a NUL", `${pass.value}\u0000`, NOW, false],
  ])("%s", (_name, value, now, expected) => {
    expect(isValidPass(value, { ...base, now })).toBe(expected);
  });

  it.each([
    ["another password hash (the password changed)", { passwordHash: "hash-b" }],
    ["another secret", { secret: "secret-2-secret-2-secret-2-secret-2" }],
    ["another subject (the stats page of the same link)", { subject: "stats\n7" }],
    ["another link", { subject: "8" }],
  ])("is refused for %s", (_name, change) => {
    expect(isValidPass(pass.value, { ...base, ...change, now: NOW })).toBe(false);
  });
});
