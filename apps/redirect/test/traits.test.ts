import type { IncomingMessage } from "node:http";
import { parseAcceptLanguage } from "@shortener/core";
import { describe, expect, it } from "vitest";
import { describeAgent, languagesOf, referrerHost } from "../src/traits.ts";

const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe("languagesOf (Accept-Language, parsed once per distinct value)", () => {
  const long = Array.from({ length: 60 }, (_, i) => `x${String.fromCharCode(97 + (i % 26))};q=0.${i % 9}`).join(",") + ",de;q=0.1";
  it.each([
    ["absent", undefined, []],
    ["one", "fr", ["fr"]],
    ["by q, ties in order", "en;q=0.5,fr-CA,de;q=0.5,pt-BR;q=0.9", ["fr", "pt", "en", "de"]],
    ["q=0 and junk dropped", "en;q=0,*,123,fr;q=abc,es", ["es"]],
    ["longer than what is cached", long, parseAcceptLanguage(long)],
  ])("%s", (_name, header, expected) => {
    const req = request(header === undefined ? {} : { "accept-language": header });
    const first = languagesOf(req);
    expect(first).toEqual(expected);
    // The second time comes from the cache, equal to a fresh parse.
    expect(languagesOf(request(header === undefined ? {} : { "accept-language": `${header}` }))).toEqual(parseAcceptLanguage(header));
  });

  it("hands out a list nobody can change", () => {
    const list = languagesOf(request({ "accept-language": "it,en;q=0.8" }));
    expect(Object.isFrozen(list)).toBe(true);
    expect(languagesOf(request({ "accept-language": "it,en;q=0.8" }))).toEqual(["it", "en"]);
  });
});

describe("referrerHost (Referer, parsed once per distinct value)", () => {
  it.each([
    ["absent", undefined, null],
    ["a page", "https://News.Example.org/story?id=1", "news.example.org"],
    ["with port and credentials", "http://user:pw@host.example:8080/x", "host.example"],
    ["IDN as punycode", "https://bücher.example/", "xn--bcher-kva.example"],
    ["numbers are an IPv4 address", "http://0x7f.1/", "127.0.0.1"],
    ["not a URL", "not a url", null],
    ["no host", "about:blank", null],
    ["longer than what is cached", `https://long.example/${"a".repeat(600)}`, "long.example"],
    ["longer than 2048", `https://huge.example/${"a".repeat(2100)}`, null],
  ])("%s", (_name, referer, expected) => {
    const headers: Record<string, string> = referer === undefined ? {} : { referer };
    expect(referrerHost(request(headers))).toBe(expected);
    expect(referrerHost(request(headers))).toBe(expected);
  });
});

describe("describeAgent", () => {
  it.each([
    ["no User-Agent is a bot", undefined, { isBot: true, botName: "No User-Agent" }],
    ["a blank User-Agent is a bot", "   ", { isBot: true, botName: "No User-Agent" }],
    ["a crawler", "Googlebot/2.1 (+http://www.google.com/bot.html)", { isBot: true, botName: "Googlebot" }],
    [
      "an iPhone",
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1",
      { isBot: false, botName: null, platform: "iOS", device: "mobile" },
    ],
    [
      "Windows Chrome",
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
      { isBot: false, botName: null, platform: "Windows", browser: "Chrome", device: "desktop" },
    ],
  ])("%s", (_name, agent, expected) => {
    expect(describeAgent(agent)).toMatchObject(expected);
    expect(describeAgent(agent)).toMatchObject(expected);
  });
});
