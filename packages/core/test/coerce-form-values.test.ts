import { describe, expect, it } from "vitest";
import { coerceFormValues, CreateLinkInput, GetStatsInput, ListLinksInput, UpdateLinkInput } from "@shortener/core";

/** Form strings → the typed values core's schemas take (REST's decoding and import rows run this first). */
describe("coerceFormValues", () => {
  it.each([
    ["an id", CreateLinkInput, { domain_id: "12" }, { domain_id: 12 }],
    ["an id with spaces", CreateLinkInput, { domain_id: " 12 " }, { domain_id: 12 }],
    ["an integer enum", CreateLinkInput, { disabled: "1", privacy: "2", target_type: "0" }, { disabled: 1, privacy: 2, target_type: 0 }],
    ["a bounded integer", CreateLinkInput, { expiration_clicks: "500" }, { expiration_clicks: 500 }],
    ["pixel ids as a comma list", CreateLinkInput, { pixel_ids: "3, 4,,5" }, { pixel_ids: [3, 4, 5] }],
    ["pixel ids as form array entries", CreateLinkInput, { pixel_ids: ["3", "4"] }, { pixel_ids: [3, 4] }],
    ["one pixel id as a JSON number", CreateLinkInput, { pixel_ids: 3 }, { pixel_ids: [3] }],
    ["an update's nullable integer", UpdateLinkInput, { expiration_clicks: "7", space_id: "2" }, { expiration_clicks: 7, space_id: 2 }],
    ["list paging", ListLinksInput, { page: "2", per_page: "25", status: "1" }, { page: 2, per_page: 25, status: 1 }],
    ["a stats query", GetStatsInput, { link_id: 4, name: "clicks", per_page: "10" }, { link_id: 4, name: "clicks", per_page: 10 }],
  ])("%s", (_name, schema, input, expected) => {
    expect(coerceFormValues(schema, input)).toEqual(expected);
  });

  it.each([
    ["text stays text where the schema takes text", CreateLinkInput, { url: "12", alias: "007", title: "42" }],
    ["a non-numeric string is left for the schema to refuse", ListLinksInput, { per_page: "banana", page: "1.5", status: "-" }],
    ["targeting entries are objects of strings", CreateLinkInput, { country: [{ key: "US", value: "https://a.test/" }] }],
    ["null (an empty form value) and absent fields stay as they are", UpdateLinkInput, { title: null, space_id: null }],
    ["unknown fields pass through untouched", CreateLinkInput, { extra: "1" }],
    ["a string enum is not a number", ListLinksInput, { sort: "10" }],
  ])("%s", (_name, schema, input) => {
    expect(coerceFormValues(schema, input)).toEqual(input);
  });

  it("a hostile value cannot become something else", () => {
    expect(coerceFormValues(CreateLinkInput, { domain_id: "1e3", disabled: "0x1", pixel_ids: "1;2" })).toEqual({ domain_id: "1e3", disabled: "0x1", pixel_ids: ["1;2"] });
    expect(coerceFormValues(CreateLinkInput, "not an object")).toBe("not an object");
    expect(coerceFormValues(CreateLinkInput, ["a"])).toEqual(["a"]);
  });

  it("the coerced form parses; what it cannot coerce fails with the field's own message", () => {
    const ok = CreateLinkInput.safeParse(coerceFormValues(CreateLinkInput, { url: "https://example.com/", domain_id: "3", pixel_ids: "1,2", disabled: "1" }));
    expect(ok.success && ok.data).toMatchObject({ domain_id: 3, pixel_ids: [1, 2], disabled: 1 });
    const bad = ListLinksInput.safeParse(coerceFormValues(ListLinksInput, { per_page: "banana" }));
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toBe("The per page must be one of 10, 25, 50, 100.");
  });
});
