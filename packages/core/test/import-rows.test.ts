import { describe, expect, it } from "vitest";
import { CreateLinkShape } from "../src/links/schemas.ts";
import { createFieldsParser, parseFields } from "../src/validation/fields.ts";
import { toLinkInput } from "@shortener/core";

describe("toLinkInput", () => {
  it("maps a row to the link schema's input: empty cells are not sent, pixel ids split on ';', numbers as numbers", () => {
    expect(toLinkInput({ url: "https://a.test", alias: "", pixel_ids: "1; 2;", domain: "x.test", country: "US", title: "T" })).toEqual({
      url: "https://a.test",
      pixel_ids: [1, 2],
      title: "T",
    });
    expect(toLinkInput({ url: "https://a.test", domain_id: "4", disabled: "1", expiration_clicks: "10", alias: "007" })).toEqual({
      url: "https://a.test",
      domain_id: 4,
      disabled: 1,
      expiration_clicks: 10,
      alias: "007",
    });
  });
});

describe("createFieldsParser", () => {
  it("gives the same values and errors as parseFields", () => {
    const parse = createFieldsParser(CreateLinkShape);
    const inputs = [
      {},
      { url: "https://a.test", domain_id: "3", alias: "ok" },
      { url: "javascript:x", domain_id: "x", privacy: "7", pixel_ids: ["1", "y"], expiration_clicks: "-1" },
      { url: "https://a.test", domain_id: 1, disabled: "1", expiration_date: "2030-01-01", expiration_time: "25:00" },
      { url: "https://a.test", domain_id: 1, tags: ["Sale", "sale", " x "], og_title: "T", utm_source: "news", rotation: [{ value: "https://b.test" }] },
      // What createLink may be handed (it parses with this parser too): no object, a sent undefined, inherited keys.
      null,
      "url=https://a.test",
      [{ url: "https://a.test" }],
      { url: undefined, domain_id: 2 },
      Object.assign(Object.create({ url: "https://inherited.test", domain_id: 9 }) as object, { title: "own" }),
    ];
    for (const input of inputs) expect(parse(input)).toEqual(parseFields(CreateLinkShape, input));
  });
});
