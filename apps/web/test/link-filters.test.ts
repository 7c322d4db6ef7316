import { describe, expect, it } from "vitest";
import { activeFilterCount, INITIAL_FILTERS, listInputOf, withFilter } from "../src/screens/links/link-filters.ts";

/** The links list's filters (apps/web/src/screens/links/link-filters.ts) → `links.list`'s input. */
describe("the links list's filters", () => {
  it("ask for the first page, newest first, with no filter set", () => {
    expect(listInputOf(INITIAL_FILTERS, "")).toEqual({ search_by: "title", status: 0, sort_by: "id", sort: "desc", per_page: 25, page: 1 });
  });

  it("send only the filters that are set, and the settled search", () => {
    const filters = { ...INITIAL_FILTERS, search: "typing…", domain_id: 4 as const, pixel_id: "" as const };
    expect(listInputOf(filters, "typed")).toMatchObject({ search: "typed", domain_id: 4 });
    expect(listInputOf(filters, "typed")).not.toHaveProperty("pixel_id");
  });

  it("send the health filter when one is chosen (CONTRACT §25: health=broken)", () => {
    expect(listInputOf({ ...INITIAL_FILTERS, health: "broken" }, "")).toMatchObject({ health: "broken" });
    expect(listInputOf(INITIAL_FILTERS, "")).not.toHaveProperty("health");
  });

  it("go back to page 1 on any change but the page's", () => {
    const onPage3 = withFilter(INITIAL_FILTERS, "page", 3);
    expect(onPage3.page).toBe(3);
    expect(withFilter(onPage3, "status", 2)).toMatchObject({ status: 2, page: 1 });
  });

  it.each([
    [{}, 0],
    [{ search: "typed", page: 4 }, 0],
    [{ status: 3 as const }, 1],
    [{ health: "broken" as const }, 1],
    [{ domain_id: 4 as const, space_id: 2 as const, pixel_id: 9 as const }, 3],
    [{ search_by: "url" as const, sort_by: "clicks" as const, sort: "asc" as const, per_page: 100 as const }, 4],
  ])("count the folded filters set (the phone's Filters button): %j → %i", (changes, count) => {
    expect(activeFilterCount({ ...INITIAL_FILTERS, ...changes })).toBe(count);
  });
});
