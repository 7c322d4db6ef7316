import { describe, expect, it } from "vitest";
import { clearedPendingCookie, PENDING_LIFETIME_MS, pendingCookie, readPending } from "../src/sso/pending-cookie.ts";

/** The cookie that carries a single sign-on from its start to its callback (docs/adr/0046-single-sign-on.md). */
const SECRET = "a secret of at least thirty-two characters";
const PENDING = { state: "s".repeat(43), nonce: "n".repeat(43), verifier: "v".repeat(43), redirectUri: "https://short.example/app/session/sso/callback" };
const AT = new Date("2026-11-27T10:00:00Z");
const later = (ms: number) => new Date(AT.getTime() + ms);
/** The `name=value` a browser sends back of a Set-Cookie line. */
const sent = (setCookie: string) => setCookie.split(";", 1)[0] ?? "";

describe("the pending sign-in cookie", () => {
  it("reads back what was written, until its 10 minutes are over", () => {
    const cookie = pendingCookie(SECRET, PENDING, AT, true);
    expect(cookie).toMatch(/^shortener_sso=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}; Path=\/app\/session\/sso; Max-Age=600; HttpOnly; SameSite=Lax; Secure$/);
    expect(readPending(sent(cookie), SECRET, AT)).toEqual(PENDING);
    expect(readPending(`other=1; ${sent(cookie)}; more=2`, SECRET, later(PENDING_LIFETIME_MS - 1))).toEqual(PENDING);
    expect(readPending(sent(cookie), SECRET, later(PENDING_LIFETIME_MS))).toBeNull();
  });

  it("over plain HTTP it is not Secure; clearing it expires it on the same path", () => {
    expect(pendingCookie(SECRET, PENDING, AT, false)).not.toContain("Secure");
    expect(clearedPendingCookie(false)).toBe("shortener_sso=; Path=/app/session/sso; Max-Age=0; HttpOnly; SameSite=Lax");
  });

  it.each([
    ["no cookie header", () => undefined],
    ["another secret's", () => sent(pendingCookie("another secret of thirty-two characters!", PENDING, AT, false))],
    ["a payload changed, the signature kept", () => sent(pendingCookie(SECRET, PENDING, AT, false)).replace("shortener_sso=e", "shortener_sso=f")],
    ["the signature cut", () => sent(pendingCookie(SECRET, PENDING, AT, false)).slice(0, -1)],
    ["no dot", () => "shortener_sso=abcdef"],
    ["only a dot", () => "shortener_sso=."],
    ["5,000 characters", () => `shortener_sso=${"a".repeat(5_000)}`],
  ])("refused: %s", (_, header) => {
    expect(readPending(header(), SECRET, AT)).toBeNull();
  });

  it.each([
    ["a field missing", { ...PENDING, state: undefined }],
    ["a field that is not text", { ...PENDING, nonce: 42 }],
    ["an empty field", { ...PENDING, verifier: "" }],
    ["a field of 2,000 characters", { ...PENDING, redirectUri: "x".repeat(2_000) }],
  ])("signed but malformed: %s", (_, pending) => {
    expect(readPending(sent(pendingCookie(SECRET, pending as typeof PENDING, AT, false)), SECRET, AT)).toBeNull();
  });
});
