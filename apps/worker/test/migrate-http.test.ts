import { describe, expect, it } from "vitest";
import { parseRetryAfter } from "../src/migrate/http.ts";

/** How long the live sources' client waits on a 429 (CONTRACT §23): every form of `Retry-After` a source sends. */
describe("parseRetryAfter", () => {
  const now = Date.parse("2026-11-27T10:00:00.000Z");
  it.each([
    ["seconds", "3", 3000],
    ["zero", "0", 0],
    ["an HTTP date", "Fri, 27 Nov 2026 10:00:07 GMT", 7000],
    ["a past HTTP date", "Fri, 27 Nov 2026 09:59:00 GMT", 0],
    ["a Unix timestamp in seconds (reset time)", String(now / 1000 + 12), 12_000],
    ["a Unix timestamp in milliseconds (Dub's reset time)", String(now + 1500), 1500],
    ["a past timestamp", String(now - 5000), 0],
    ["absent", null, null],
    ["unreadable", "soon", null],
    ["negative", "-4", null],
  ])("%s", (_name, value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});
