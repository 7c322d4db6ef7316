import { defaulted, intEnumField, intField, onCreate, stringEnumField, textField } from "../validation/fields.ts";

export const PER_PAGE_VALUES = [10, 25, 50, 100] as const;

/** The paging part every list shares: `page` (1-based), `per_page` and `sort`. */
export const PageParams = {
  page: defaulted(intField("page", { min: 1, max: 1_000_000 }), 1),
  per_page: defaulted(intEnumField("per page", PER_PAGE_VALUES), 10),
  sort: defaulted(stringEnumField("sort", ["desc", "asc"]), "desc"),
};

/** The list parameters of a resource known by its name (domains, spaces, pixels): the paging, a search in the name, and sorted by id or name. */
export const NamedListParams = {
  ...PageParams,
  search: onCreate(textField("search", 0, 255)),
  search_by: defaulted(stringEnumField("search by", ["name"]), "name"),
  sort_by: defaulted(stringEnumField("sort by", ["id", "name"]), "id"),
};

export type Page<T> = { data: T[]; total: number; page: number; perPage: number };

export function offsetOf(page: number, perPage: number): number {
  return (page - 1) * perPage;
}
