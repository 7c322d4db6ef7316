import { describe, expect, it } from "vitest";
import { parseVisitPath } from "../src/visit-path.ts";

describe("parseVisitPath (CONTRACT §7 steps 1–2)", () => {
  it.each([
    ["/", { kind: "index", query: "" }],
    ["/?utm=1", { kind: "index", query: "utm=1" }],
    ["/abc", { kind: "alias", alias: "abc", query: "" }],
    ["/abc/", { kind: "alias", alias: "abc", query: "" }],
    ["/abc?x=1&y=2", { kind: "alias", alias: "abc", query: "x=1&y=2" }],
    ["/a_b-C9?", { kind: "alias", alias: "a_b-C9", query: "" }],
    [`/${"a".repeat(255)}`, { kind: "alias", alias: "a".repeat(255), query: "" }],
    [`/${"a".repeat(256)}`, { kind: "none", query: "" }],
    ["/abc//", { kind: "none", query: "" }],
    ["/a/b", { kind: "none", query: "" }],
    ["/abc/qr", { kind: "qr", alias: "abc", query: "" }],
    ["/abc/qr/?size=64", { kind: "qr", alias: "abc", query: "size=64" }],
    ["/qr", { kind: "alias", alias: "qr", query: "" }],
    ["/qr/qr", { kind: "qr", alias: "qr", query: "" }],
    ["/abc/QR", { kind: "none", query: "" }],
    ["/abc/qr/qr", { kind: "none", query: "" }],
    ["//qr", { kind: "none", query: "" }],
    [`/${"a".repeat(256)}/qr`, { kind: "none", query: "" }],
    ["/%41bc", { kind: "none", query: "" }],
    ["/a.b", { kind: "none", query: "" }],
    ["//", { kind: "none", query: "" }],
    ["*", { kind: "none", query: "" }],
    ["http://host/abc", { kind: "none", query: "" }],
    // CONTRACT §25: a domain's app-link files, exactly these two paths; never an alias.
    ["/.well-known/apple-app-site-association", { kind: "app-links", file: "appleAppSiteAssociation", query: "" }],
    ["/.well-known/assetlinks.json", { kind: "app-links", file: "assetLinks", query: "" }],
    ["/.well-known/assetlinks.json?x=1", { kind: "app-links", file: "assetLinks", query: "x=1" }],
    ["/.well-known/assetlinks.json/", { kind: "none", query: "" }],
    ["/.well-known/Assetlinks.json", { kind: "none", query: "" }],
    ["/.well-known/apple-app-site-association.json", { kind: "none", query: "" }],
    ["/.well-known/", { kind: "none", query: "" }],
    ["/.well-known", { kind: "none", query: "" }],
    ["/apple-app-site-association", { kind: "alias", alias: "apple-app-site-association", query: "" }],
    ["//.well-known/assetlinks.json", { kind: "none", query: "" }],
    ["/.well-known/%61ssetlinks.json", { kind: "none", query: "" }],
    ["/constructor", { kind: "alias", alias: "constructor", query: "" }],
    ["/__proto__", { kind: "alias", alias: "__proto__", query: "" }],
  ])("%s", (url, expected) => {
    expect(parseVisitPath(url)).toEqual(expected);
  });
});
