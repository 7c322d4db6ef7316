import { describe, expect, it } from "vitest";
import { hasPassCookie, passCookieHeader, readCookie, signPass } from "../src/shared/pass-cookie.ts";

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

describe("signed passes", () => {
  it("signs exactly as the visitor side and the stats page did before they shared this code (issued cookies stay valid)", () => {
    // HMAC-SHA256 of "7\nhash-a" and "stats\n7\nhash-a" under "secret-1", as issued before.
    expect(signPass("secret-1", "7", "hash-a")).toBe("iOdv-Au-idvt6UvGqKB7aBdx0-y5XlOyXyYVM3g9R_c");
    expect(signPass("secret-1", "stats\n7", "hash-a")).toBe("jx8Nl6ZZyB-sHjKgIY8T2BOSEDYXr9FGv4i42wMk3KQ");
  });

  it.each([
    ["the right pass", (pass: string) => `x=1; pass_7=${pass}`, true],
    ["no cookie", () => undefined, false],
    ["another link's cookie", (pass: string) => `pass_8=${pass}`, false],
    ["a shorter value", (pass: string) => `pass_7=${pass.slice(1)}`, false],
    ["a longer value", (pass: string) => `pass_7=${pass}x`, false],
    ["one character changed", (pass: string) => `pass_7=${pass.slice(0, -1)}${pass.endsWith("A") ? "B" : "A"}`, false],
  ])("%s", (_name, header, expected) => {
    const pass = signPass("secret-1", "7", "hash-a");
    expect(hasPassCookie(header(pass), "pass_7", pass)).toBe(expected);
  });

  it("a changed password or secret makes another pass", () => {
    const pass = signPass("secret-1", "7", "hash-a");
    expect(signPass("secret-1", "7", "hash-b")).not.toBe(pass);
    expect(signPass("secret-2", "7", "hash-a")).not.toBe(pass);
    expect(signPass("secret-1", "stats\n7", "hash-a")).not.toBe(pass);
  });

  it("builds the Set-Cookie header", () => {
    expect(passCookieHeader("pass_7", "v", "/abc", false)).toBe("pass_7=v; Path=/abc; Max-Age=86400; HttpOnly; SameSite=Lax");
    expect(passCookieHeader("pass_7", "v", "/abc", true)).toBe("pass_7=v; Path=/abc; Max-Age=86400; HttpOnly; SameSite=Lax; Secure");
  });
});
