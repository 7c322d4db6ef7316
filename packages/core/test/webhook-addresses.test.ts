import { describe, expect, it } from "vitest";
import { refusedAddressKind, refusedTargetReason } from "../src/index.ts";

describe("refusedAddressKind: only public unicast addresses receive webhooks", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.0.0.1", "private"],
    ["10.255.255.255", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.0.1", "private"],
    ["169.254.169.254", "link-local"],
    ["100.64.0.1", "shared (CGNAT)"],
    ["100.127.255.255", "shared (CGNAT)"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["198.18.0.1", "benchmarking"],
    ["192.0.2.1", "documentation"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["::ffff:127.0.0.1", "IPv4-mapped"],
    ["::ffff:7f00:1", "IPv4-mapped"],
    ["::ffff:8.8.8.8", "IPv4-mapped"],
    ["0:0:0:0:0:ffff:a00:1", "IPv4-mapped"],
    ["::127.0.0.1", "IPv4-compatible"],
    ["fc00::1", "unique local"],
    ["fd12:3456:789a::1", "unique local"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "scoped (zone)"],
    ["febf:ffff::1", "link-local"],
    ["fec0::1", "site-local"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "documentation"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"],
    ["2002:7f00:1::1", "6to4 of a non-public address"],
    ["2002:c0a8:101::1", "6to4 of a non-public address"],
    ["64:ff9b::7f00:1", "NAT64 to a non-public address"],
    ["64:ff9b:1::1", "NAT64 to a non-public address"],
    ["100::1", "reserved"],
    ["4000::1", "reserved"],
    ["localhost", "not an address"],
    ["1.2.3", "not an address"],
    ["", "not an address"],
  ])("%s is refused: %s", (address, kind) => {
    expect(refusedAddressKind(address)).toBe(kind);
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "100.63.255.255",
    "100.128.0.0",
    "172.15.255.255",
    "172.32.0.0",
    "169.253.255.255",
    "192.169.0.1",
    "11.0.0.1",
    "223.255.255.255",
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "2002:808:808::1",
    "64:ff9b::808:808",
    "[2001:4860:4860::8888]",
  ])("%s is public", (address) => {
    expect(refusedAddressKind(address)).toBeNull();
  });
});

describe("refusedTargetReason: what is refused when a webhook is created", () => {
  it.each([
    ["http://127.0.0.1/", "127.0.0.1 is a loopback address"],
    ["http://[::ffff:127.0.0.1]:8080/x", "::ffff:7f00:1 is an IPv4-mapped address"],
    ["http://LOCALHOST./", "localhost. is a loopback name"],
    ["http://api.localhost/", "api.localhost is a loopback name"],
    ["http://017700000001/", "127.0.0.1 is a loopback address"],
  ])("%s", (url, reason) => {
    expect(refusedTargetReason(url)).toContain(reason);
  });

  it("leaves names to the check after DNS", () => {
    expect(refusedTargetReason("https://hooks.example/")).toBeNull();
    expect(refusedTargetReason("https://8.8.8.8/")).toBeNull();
  });
});
