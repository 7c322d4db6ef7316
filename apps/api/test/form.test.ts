import { describe, expect, it } from "vitest";
import { decodeForm } from "../src/http/form.ts";

describe("decodeForm", () => {
  it.each([
    ["a=1&b=two", { a: "1", b: "two" }],
    ["pixel_ids[]=3&pixel_ids[]=4", { pixel_ids: ["3", "4"] }],
    ["pixel_ids[0]=3&pixel_ids[1]=4", { pixel_ids: ["3", "4"] }],
    ["pixel_ids=3&pixel_ids=4", { pixel_ids: ["3", "4"] }],
    ["pixel_ids=1,2", { pixel_ids: "1,2" }],
    ["country[0][key]=US&country[0][value]=https%3A%2F%2Fus.example", { country: [{ key: "US", value: "https://us.example" }] }],
    ["password=", { password: null }],
    ["a=%F0%9F%98%80", { a: "😀" }],
    ["__proto__[admin]=1&a=1", { a: "1" }],
    ["constructor[prototype][x]=1&a=1", { a: "1" }],
    ["", {}],
  ])("%s", (body, expected) => {
    expect(decodeForm(body)).toEqual(expected);
  });

  it("does not pollute Object.prototype", () => {
    decodeForm("__proto__[polluted]=yes&a[__proto__][polluted]=yes");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ["too many fields", Array.from({ length: 5001 }, (_, i) => `f${i}=1`).join("&")],
    ["too deep", "a[b][c][d][e]=1"],
    ["too many entries in a list", Array.from({ length: 1002 }, () => "a[]=1").join("&")],
  ])("refuses %s with a 400", (_name, body) => {
    expect(() => decodeForm(body)).toThrow(expect.objectContaining({ status: 400, code: "bad_request" }));
  });
});
