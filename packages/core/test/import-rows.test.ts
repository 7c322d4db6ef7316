import { describe, expect, it } from "vitest";
import { CreateLinkShape } from "../src/links/schemas.ts";
import { createFieldsParser, parseFields } from "../src/validation/fields.ts";
import { formatErrorsCsv, toCsvCell, toLinkInput } from "@shortener/core";

describe("toCsvCell", () => {
  it.each([
    ['=HYPERLINK("http://evil")', '"\'=HYPERLINK(""http://evil"")"'],
    ["+1", "'+1"],
    ["-2", "'-2"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["\tcmd", "'\tcmd"],
    ["\rcmd", '"\'\rcmd"'],
    ["plain", "plain"],
    ["a,b", '"a,b"'],
    ["two\nlines", '"two\nlines"'],
  ])("neutralises and quotes %j", (input, expected) => {
    expect(toCsvCell(input)).toBe(expected);
  });

  it("leaves numbers and empty values alone", () => {
    expect(toCsvCell(-5)).toBe("-5");
    expect(toCsvCell(null)).toBe("");
  });

  it("formats row errors as CRLF lines", () => {
    expect(
      formatErrorsCsv([
        { line: 3, field: "title", message: "=cmd|' /C calc'!A0" },
        { line: 4, field: null, message: "x" },
      ]),
    ).toBe("3,title,'=cmd|' /C calc'!A0\r\n4,,x\r\n");
  });
});

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
    ];
    for (const input of inputs) expect(parse(input)).toEqual(parseFields(CreateLinkShape, input));
  });
});
