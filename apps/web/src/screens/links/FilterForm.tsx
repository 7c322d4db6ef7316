import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { LINK_HEALTH, LINK_STATUS_NAMES } from "@shortener/vocabulary";
import { useTRPC } from "../../trpc.ts";
import { Field } from "../../ui.tsx";
import { activeFilterCount, HEALTH_NAMES, type LinkFilters } from "./link-filters.ts";

/**
 * Search, status, domain, space, pixel, tag and health filters, sort, order and page size; every change applies at once.
 * Below 640 px everything but the search folds into a panel behind a "Filters" button (with the number of
 * filters set), so a phone sees its first link without scrolling.
 */
export function FilterForm({ filters, set }: { filters: LinkFilters; set: <K extends keyof LinkFilters>(key: K, value: LinkFilters[K]) => void }) {
  const trpc = useTRPC();
  const domains = useQuery(trpc.domains.list.queryOptions({ per_page: 100 }));
  const spaces = useQuery(trpc.spaces.list.queryOptions({ per_page: 100 }));
  const pixels = useQuery(trpc.pixels.list.queryOptions({ per_page: 100 }));
  const tags = useQuery(trpc.tags.list.queryOptions());
  const [isOpen, setOpen] = useState(false);
  const idOrAny = (value: string) => (value ? Number(value) : "");
  const count = activeFilterCount(filters);
  return (
    <form className="filters" role="search" aria-label="Filter links" onSubmit={(e) => e.preventDefault()}>
      <Field label="Search">{(p) => <input {...p} type="search" value={filters.search} onChange={(e) => set("search", e.target.value)} placeholder="Type to search" />}</Field>
      <button type="button" className="ghost filters-toggle" aria-expanded={isOpen} aria-controls="link-filters-panel" onClick={() => setOpen((open) => !open)}>
        Filters
        {count ? ` (${count} set)` : ""}
      </button>
      <div id="link-filters-panel" className="filters-panel" data-open={isOpen}>
        <Field label="Search in">
          {(p) => (
            <select {...p} value={filters.search_by} onChange={(e) => set("search_by", e.target.value as LinkFilters["search_by"])}>
              <option value="title">Title</option>
              <option value="alias">Alias</option>
              <option value="url">URL</option>
            </select>
          )}
        </Field>
        <Field label="Status">
          {(p) => (
            <select {...p} value={filters.status} onChange={(e) => set("status", Number(e.target.value) as LinkFilters["status"])}>
              <option value={0}>Any</option>
              {Object.entries(LINK_STATUS_NAMES).map(([value, name]) => (
                <option key={value} value={value}>
                  {name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Domain">
          {(p) => (
            <select {...p} value={filters.domain_id} onChange={(e) => set("domain_id", idOrAny(e.target.value))}>
              <option value="">Any</option>
              {domains.data?.data.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Space">
          {(p) => (
            <select {...p} value={filters.space_id} onChange={(e) => set("space_id", idOrAny(e.target.value))}>
              <option value="">Any</option>
              {spaces.data?.data.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Pixel">
          {(p) => (
            <select {...p} value={filters.pixel_id} onChange={(e) => set("pixel_id", idOrAny(e.target.value))}>
              <option value="">Any</option>
              {pixels.data?.data.map((x) => (
                <option key={x.id} value={x.id}>
                  {x.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Tag">
          {(p) => (
            <select {...p} value={filters.tag} onChange={(e) => set("tag", e.target.value)}>
              <option value="">Any</option>
              {tags.data?.data.map((t) => (
                <option key={t.name} value={t.name}>
                  {t.name} ({t.count})
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Health">
          {(p) => (
            <select {...p} value={filters.health} onChange={(e) => set("health", e.target.value as LinkFilters["health"])}>
              <option value="">Any</option>
              {LINK_HEALTH.map((health) => (
                <option key={health} value={health}>
                  {HEALTH_NAMES[health]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Sort by">
          {(p) => (
            <select {...p} value={filters.sort_by} onChange={(e) => set("sort_by", e.target.value as LinkFilters["sort_by"])}>
              <option value="id">Created</option>
              <option value="clicks">Clicks</option>
              <option value="title">Title</option>
              <option value="alias">Alias</option>
              <option value="url">URL</option>
            </select>
          )}
        </Field>
        <Field label="Order">
          {(p) => (
            <select {...p} value={filters.sort} onChange={(e) => set("sort", e.target.value as LinkFilters["sort"])}>
              <option value="desc">Descending</option>
              <option value="asc">Ascending</option>
            </select>
          )}
        </Field>
        <Field label="Per page">
          {(p) => (
            <select {...p} value={filters.per_page} onChange={(e) => set("per_page", Number(e.target.value) as LinkFilters["per_page"])}>
              {[10, 25, 50, 100].map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
    </form>
  );
}
