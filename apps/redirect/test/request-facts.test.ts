import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { createRequestFacts } from "../src/request-facts.ts";

/** A request as the visitor side reads it: the socket's address and the headers. */
function request(socket: string, forwardedFor?: string, proto?: string): IncomingMessage {
  const headers: Record<string, string> = {};
  if (forwardedFor !== undefined) headers["x-forwarded-for"] = forwardedFor;
  if (proto !== undefined) headers["x-forwarded-proto"] = proto;
  return { headers, socket: { remoteAddress: socket }, connection: { remoteAddress: socket } } as unknown as IncomingMessage;
}

describe("the visitor's address behind trusted proxies (TRUST_PROXY, CONTRACT §13)", () => {
  const facts = createRequestFacts({ trustProxy: ["loopback", "10.0.0.0/8"], geoCountryHeader: undefined }, () => undefined);

  it.each([
    ["a trusted proxy's client", request("127.0.0.1", "203.0.113.9"), "203.0.113.9"],
    ["a client over two trusted proxies", request("127.0.0.1", "198.51.100.7, 10.1.2.3"), "198.51.100.7"],
    ["a forged hop before an untrusted one", request("127.0.0.1", "192.0.2.1, 203.0.113.9"), "203.0.113.9"],
    ["an untrusted peer's header is ignored", request("192.0.2.50", "203.0.113.9"), "192.0.2.50"],
    ["an IPv6 client", request("::1", "2001:db8::1"), "2001:db8::1"],
  ])("%s", (_name, req, expected) => {
    expect(facts.clientIp(req)).toBe(expected);
  });

  it("answers each request with its own address, asked in turn and again (the kept answers never leak across requests)", () => {
    const a = request("127.0.0.1", "203.0.113.9");
    const b = request("127.0.0.1", "198.51.100.7");
    const untrusted = request("192.0.2.50", "198.51.100.7");
    const seen = [a, a, b, a, untrusted, b, b, untrusted, a].map((req) => facts.clientIp(req));
    expect(seen).toEqual(["203.0.113.9", "203.0.113.9", "198.51.100.7", "203.0.113.9", "192.0.2.50", "198.51.100.7", "198.51.100.7", "192.0.2.50", "203.0.113.9"]);
  });

  it("believes X-Forwarded-Proto from a trusted proxy only, the same address trusted or not on every ask", () => {
    for (let i = 0; i < 3; i++) {
      expect(facts.isSecure(request("127.0.0.1", "203.0.113.9", "https"))).toBe(true);
      expect(facts.isSecure(request("192.0.2.50", "203.0.113.9", "https"))).toBe(false);
    }
  });
});
