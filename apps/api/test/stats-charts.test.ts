import { describe, expect, it } from "vitest";
import { barList, columnChart, niceScale } from "../src/stats-page/charts.ts";
import { displayName, escapeHtml, formatDay, statsCsp } from "../src/stats-page/html.ts";
import { hasValidStatsPass, statsPassCookie, statsCookieName } from "../src/stats-page/pass.ts";

describe("stats page charts", () => {
  it.each([
    [0, { top: 4, step: 1 }],
    [1, { top: 1, step: 1 }],
    [3, { top: 3, step: 1 }],
    [7, { top: 8, step: 2 }],
    [42, { top: 60, step: 20 }],
    [1234, { top: 1500, step: 500 }],
  ])("niceScale(%i) has whole, round ticks", (max, expected) => {
    expect(niceScale(max)).toEqual(expected);
  });

  it("draws a column per non-zero value with its tooltip, labels the peak, and escapes every label", () => {
    const svg = columnChart({
      id: "c",
      title: "Clicks <per> day",
      description: "a & b",
      columns: [
        { value: 0, tooltip: "zero" },
        { value: 5, tooltip: "five <b>" },
        { value: 2, tooltip: "two" },
      ],
      xLabels: [{ index: 0, label: "<x>" }],
      className: "bar",
    });
    expect(svg.match(/<rect /g)).toHaveLength(2);
    expect(svg).toContain('<rect class="bar peak"');
    expect(svg).toContain("<title>five &lt;b&gt;</title>");
    expect(svg).toContain('<text class="peak-label"');
    expect(svg).toContain("Clicks &lt;per&gt; day");
    expect(svg).toContain("&lt;x&gt;");
    expect(svg).not.toContain("<b>");
  });

  it("draws ranked bars with counts and shares, truncating long labels", () => {
    const svg = barList({
      id: "b",
      title: "T",
      rows: [
        { label: "a".repeat(50), value: 3 },
        { label: `"quoted"`, value: 1 },
      ],
      total: 4,
      tone: "country",
    });
    expect(svg).toContain(`>${"a".repeat(26)}…<`);
    expect(svg).toContain(">75%</text>");
    expect(svg).toContain(">25%</text>");
    expect(svg).toContain("&quot;quoted&quot;");
    expect(svg.match(/class="hbar"/g)).toHaveLength(2);
  });
});

describe("stats page helpers", () => {
  it("escapes, names countries and languages, formats days, and builds the CSP", () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    expect(displayName("country", "US")).toBe("United States");
    expect(displayName("language", "fr")).toBe("French");
    expect(displayName("country", "Unknown")).toBe("Unknown");
    expect(formatDay("2026-06-01")).toBe("Jun 1");
    expect(formatDay("2026-12-31", true)).toBe("Dec 31, 2026");
    expect(statsCsp("abc")).toBe("default-src 'none'; style-src 'nonce-abc'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'");
  });

  it("a pass cookie is bound to the link, the password hash and the secret, and expires after a day", () => {
    const now = new Date("2026-11-22T10:00:00Z");
    const pass = { secret: "secret-1", linkId: 7, privacyPasswordHash: "hash-a", now };
    const setCookie = statsPassCookie({ ...pass, isSecure: false });
    expect(setCookie).toMatch(/^stats_pass_7=\d{10}\.[\w-]{43}; Path=\/stats\/7; Max-Age=86400; HttpOnly; SameSite=Lax$/);
    const value = setCookie.slice(setCookie.indexOf("=") + 1, setCookie.indexOf(";"));
    const cookie = `other=1; ${statsCookieName(7)}=${value}`;
    expect(hasValidStatsPass(cookie, pass)).toBe(true);
    expect(hasValidStatsPass(cookie, { ...pass, privacyPasswordHash: "hash-b" })).toBe(false);
    expect(hasValidStatsPass(cookie, { ...pass, secret: "secret-2" })).toBe(false);
    expect(hasValidStatsPass(`${statsCookieName(8)}=${value}`, { ...pass, linkId: 8 })).toBe(false);
    expect(hasValidStatsPass(undefined, pass)).toBe(false);
    expect(hasValidStatsPass(cookie, { ...pass, now: new Date(now.getTime() + 86_400_000) })).toBe(false);
  });
});
