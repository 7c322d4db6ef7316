import { describe, expect, it } from "vitest";
import { checkUrl, normalizeDomainName } from "../src/urls/url.ts";

describe("checkUrl (CONTRACT §4 url rules)", () => {
  it.each([
    ["https://example.com", "https://example.com/"],
    ["http://example.com/a?b=c#d", "http://example.com/a?b=c#d"],
    ["  https://example.com/trimmed  ", "https://example.com/trimmed"],
    ["HTTPS://EXAMPLE.COM/Path", "https://example.com/Path"],
    ["https://bücher.example/x", "https://xn--bcher-kva.example/x"],
    ["https://例え.jp/", "https://xn--r8jz45g.jp/"],
    ["https://example.com:8443/p", "https://example.com:8443/p"],
    ["https://192.0.2.1/", "https://192.0.2.1/"],
    ["https://[2001:db8::1]/", "https://[2001:db8::1]/"],
    ["https://example.com/%20encoded", "https://example.com/%20encoded"],
  ])("accepts %s as %s", (raw, normalized) => {
    expect(checkUrl(raw, "url")).toEqual({ ok: true, url: normalized, host: new URL(normalized).host });
  });

  it.each([
    ["javascript:alert(1)", "must start with http"],
    ["JaVaScRiPt:alert(1)", "must start with http"],
    ["data:text/html,<script>alert(1)</script>", "must start with http"],
    ["file:///etc/passwd", "must start with http"],
    ["ftp://example.com/", "must start with http"],
    ["vbscript:msgbox", "must start with http"],
    ["//example.com/path", "valid URL"],
    ["/relative/path", "valid URL"],
    ["example.com", "valid URL"],
    ["https://", "valid URL"],
    ["http:/example.com", "valid URL"],
    ["https:example.com", "valid URL"],
    ["https://exa mple.com", "spaces or control"],
    ["https://example.com/\u0000", "spaces or control"],
    ["https://example.com/\r\nLocation: evil", "spaces or control"],
    ["https://example.com/\u200b", "spaces or control"],
    ["https://example.com/\u202e", "spaces or control"],
    ["https://user:pass@example.com/", "user name or password"],
    ["https://google.com@evil.example/", "user name or password"],
    [`https://example.com/${"a".repeat(2048)}`, "2048"],
    ["https://exa<mple.com/", "valid URL"],
    ["", "required"],
    ["   ", "required"],
  ])("refuses %s", (raw, message) => {
    const result = checkUrl(raw, "url");
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain(message);
  });
});

describe("normalizeDomainName (CONTRACT §4 domain rules)", () => {
  it.each([
    ["Example.COM", "example.com"],
    ["https://example.com/", "example.com"],
    ["http://sub.example.com", "sub.example.com"],
    ["example.com:8080", "example.com:8080"],
    ["localhost:3000", "localhost:3000"],
    ["192.0.2.10", "192.0.2.10"],
    ["bücher.example", "xn--bcher-kva.example"],
    ["  go.example  ", "go.example"],
  ])("%s → %s", (raw, expected) => {
    expect(normalizeDomainName(raw)).toBe(expected);
  });

  it.each([
    "",
    "exa mple.com",
    "example.com/path",
    "-bad.example",
    "bad-.example",
    "under_score.example",
    "example.com:0",
    "example.com:70000",
    "example.com:08080",
    "999.1.1.1",
    "1.2.3",
    "0x7f.1",
    "2130706433",
    "user@example.com",
    "example.com?x",
    "ftp://example.com",
    `${"a".repeat(64)}.example`,
    "a..example",
    "[::1]",
  ])("refuses %j", (raw) => {
    expect(normalizeDomainName(raw)).toBeNull();
  });
});

describe("hostOf", () => {
  it("cuts the host and port out of a normalised URL, as the URL parser would", async () => {
    const { checkUrl, hostOf } = await import("../src/urls/url.ts");
    for (const raw of ["https://Example.com/a?b#c", "http://example.com:8080", "https://[::1]:3000/x", "https://xn--bcher-kva.example?q=/x", "https://a.example#frag/x", "http://1.2.3.4/"]) {
      const checked = checkUrl(raw, "url");
      if (!checked.ok) throw new Error(raw);
      expect(hostOf(checked.url)).toBe(new URL(checked.url).host);
    }
  });
});
