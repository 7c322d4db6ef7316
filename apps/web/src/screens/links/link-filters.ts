import type { LinkHealth } from "@shortener/vocabulary";
import type { Inputs } from "../../trpc.ts";

/** What the list's filter form holds (CONTRACT §5's list parameters; "" is "any"). */
export type LinkFilters = {
  search: string;
  search_by: "title" | "alias" | "url";
  status: 0 | 1 | 2 | 3;
  domain_id: number | "";
  space_id: number | "";
  pixel_id: number | "";
  /** A tag's name ("" any). */
  tag: string;
  /** The destination's health ("" any): `broken` lists the links the worker found broken. */
  health: LinkHealth | "";
  sort_by: "id" | "clicks" | "title" | "alias" | "url";
  sort: "asc" | "desc";
  per_page: 10 | 25 | 50 | 100;
  page: number;
};

export const INITIAL_FILTERS: LinkFilters = {
  search: "",
  search_by: "title",
  status: 0,
  domain_id: "",
  space_id: "",
  pixel_id: "",
  tag: "",
  health: "",
  sort_by: "id",
  sort: "desc",
  per_page: 25,
  page: 1,
};

/** The filters after a change of one: any change but the page's goes back to page 1. */
export function withFilter<K extends keyof LinkFilters>(filters: LinkFilters, key: K, value: LinkFilters[K]): LinkFilters {
  return { ...filters, [key]: value, page: key === "page" ? (value as number) : 1 };
}

/** `links.list`'s input: the search as typed once it settles (`search`), and only the filters that are set. */
export function listInputOf(filters: LinkFilters, search: string): Inputs["links"]["list"] {
  return {
    search_by: filters.search_by,
    status: filters.status,
    sort_by: filters.sort_by,
    sort: filters.sort,
    per_page: filters.per_page,
    page: filters.page,
    ...(search ? { search } : {}),
    ...(filters.domain_id ? { domain_id: filters.domain_id } : {}),
    ...(filters.space_id ? { space_id: filters.space_id } : {}),
    ...(filters.pixel_id ? { pixel_id: filters.pixel_id } : {}),
    ...(filters.tag ? { tag: [filters.tag] } : {}),
    ...(filters.health ? { health: filters.health } : {}),
  };
}

/** How many of the folded filters (everything but the search and the page) differ from the initial ones. */
export function activeFilterCount(filters: LinkFilters): number {
  const keys = ["search_by", "status", "domain_id", "space_id", "pixel_id", "tag", "health", "sort_by", "sort", "per_page"] as const;
  return keys.filter((key) => filters[key] !== INITIAL_FILTERS[key]).length;
}

/** Each destination health as people read it (the filter's choices; the list shows a badge for broken links). */
export const HEALTH_NAMES: Readonly<Record<LinkHealth, string>> = { ok: "OK", broken: "Broken", unchecked: "Not checked yet" };
