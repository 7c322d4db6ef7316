import { describe, expect, it } from "vitest";
import { TARGET_TYPES } from "@shortener/vocabulary";
import { createInputOf, EMPTY_FORM, formFieldOf, formOf, otherErrorsOf, TARGET_TYPE_OPTIONS, updateInputOf, type LinkForm } from "../src/screens/link-editor/link-form.ts";
import type { Link } from "../src/trpc.ts";

/** The link editor's form model (apps/web/src/screens/link-editor/link-form.ts): what it loads and what it sends. */
const LINK = {
  id: 7,
  url: "https://example.com/",
  alias: "launch",
  title: "Launch",
  domain: { id: 3, name: "s.example" },
  space: { id: 5 },
  pixels: [{ id: 1 }, { id: 2 }],
  tags: ["sale", "Fall 26"],
  og_title: "Launch card",
  og_description: null,
  og_image: "https://img.example/card.png",
  disabled: 1,
  privacy: 2,
  password: true,
  privacy_password: true,
  expiration_url: "https://example.com/over",
  expiration_date: "2030-01-02",
  expiration_time: "10:30",
  expiration_clicks: 50,
  target_type: TARGET_TYPES.country,
  country_target: [{ key: "DE", value: "https://example.de/" }],
  platform_target: null,
  language_target: null,
  rotation_target: null,
} as unknown as Link;

const form = (overrides: Partial<LinkForm>): LinkForm => ({ ...EMPTY_FORM, url: " https://example.com/ ", domain_id: "3", ...overrides });

describe("the link editor's form model", () => {
  it("fills every field from a link, without its passwords", () => {
    expect(formOf(LINK)).toEqual({
      ...EMPTY_FORM,
      url: "https://example.com/",
      domain_id: "3",
      alias: "launch",
      title: "Launch",
      space_id: "5",
      pixel_ids: [1, 2],
      tags: "sale, Fall 26",
      og_title: "Launch card",
      og_image: "https://img.example/card.png",
      disabled: true,
      privacy: "2",
      expiration_url: "https://example.com/over",
      expiration_date: "2030-01-02",
      expiration_time: "10:30",
      expiration_clicks: "50",
      target_type: TARGET_TYPES.country,
      targets: [{ key: "DE", value: "https://example.de/" }],
    });
  });

  it("reads rotation entries, which have no key", () => {
    const rotating = {
      ...LINK,
      target_type: TARGET_TYPES.rotation,
      country_target: null,
      rotation_target: [
        { value: "https://a.example/", weight: 70 },
        { value: "https://b.example/", weight: 30 },
      ],
    } as unknown as Link;
    expect(formOf(rotating).targets).toEqual([
      { key: "", value: "https://a.example/", weight: "70" },
      { key: "", value: "https://b.example/", weight: "30" },
    ]);
    // Weights go back as numbers: an edit keeps them; an empty weight field sends none.
    expect(updateInputOf(7, formOf(rotating))).toMatchObject({
      rotation: [
        { value: "https://a.example/", weight: 70 },
        { value: "https://b.example/", weight: 30 },
      ],
    });
    const unweighted = { ...formOf(rotating), targets: [{ key: "", value: "https://a.example/", weight: "" }] };
    expect(updateInputOf(7, unweighted)).toMatchObject({ rotation: [{ value: "https://a.example/" }] });
  });

  it("sends tags as a list: blanks dropped; on update an emptied field clears them, on create it sends none", () => {
    expect(createInputOf(form({ tags: " sale, ,Fall 26 " })).tags).toEqual(["sale", "Fall 26"]);
    expect(createInputOf(form({ tags: "" })).tags).toBeUndefined();
    expect(updateInputOf(7, form({ tags: "" })).tags).toEqual([]);
  });

  it("sends the Open Graph fields trimmed; on update an emptied one is null (cleared), on create it is left out", () => {
    expect(createInputOf(form({ og_title: " Card ", og_description: "", og_image: "https://img.example/c.png" }))).toMatchObject({ og_title: "Card", og_image: "https://img.example/c.png" });
    expect(createInputOf(form({ og_description: "  " })).og_description).toBeUndefined();
    expect(updateInputOf(7, form({ og_title: "", og_description: "Two\nlines", og_image: "" }))).toMatchObject({ og_title: null, og_description: "Two\nlines", og_image: null });
  });

  it("creates with the defaults left out, the domain as a number and values trimmed", () => {
    expect(createInputOf(form({ alias: " a1 ", title: "  " }))).toEqual({
      url: "https://example.com/",
      domain_id: 3,
      alias: "a1",
      disabled: 0,
      privacy: 0,
      expiration_clicks: 0,
      target_type: TARGET_TYPES.none,
    });
  });

  it("updates with emptied fields as null (cleared) and the pixels always sent", () => {
    expect(updateInputOf(7, form({ title: "", space_id: "", expiration_date: "", expiration_time: "10:00" }))).toMatchObject({
      id: 7,
      title: null,
      space_id: null,
      pixel_ids: [],
      expiration_date: null,
      // A time without a date means nothing: cleared too.
      expiration_time: null,
    });
  });

  it("sends a password only when typed, and null when removed on update", () => {
    expect(updateInputOf(7, form({}))).not.toHaveProperty("password");
    expect(updateInputOf(7, form({ removePassword: true }))).toMatchObject({ password: null });
    expect(updateInputOf(7, form({ password: "s3cret", removePassword: true }))).toMatchObject({ password: "s3cret" });
    expect(createInputOf(form({ removePassword: true }))).not.toHaveProperty("password");
  });

  it("sends the entries under their group, rotation without keys", () => {
    const entries = [{ key: " de ", value: " https://example.de/ " }];
    expect(createInputOf(form({ target_type: TARGET_TYPES.country, targets: entries }))).toMatchObject({ target_type: 1, country: [{ key: "de", value: "https://example.de/" }] });
    expect(createInputOf(form({ target_type: TARGET_TYPES.rotation, targets: entries }))).toMatchObject({ target_type: 4, rotation: [{ value: "https://example.de/" }] });
    expect(createInputOf(form({ target_type: TARGET_TYPES.none, targets: entries }))).not.toHaveProperty("country");
  });

  it("puts each API message under the field whose change hides it; messages about no field go above the form", () => {
    expect(formFieldOf("alias")).toBe("alias");
    expect(formFieldOf("country.0.key")).toBe("targets");
    expect(formFieldOf("target_type")).toBe("targets");
    expect(otherErrorsOf({ alias: ["taken"], "rotation.1.value": ["bad"], ids: ["odd"] })).toEqual([["ids", ["odd"]]]);
  });

  it("offers every target type of the vocabulary, in order", () => {
    expect(TARGET_TYPE_OPTIONS.map((o) => o.value)).toEqual(Object.values(TARGET_TYPES));
  });
});
