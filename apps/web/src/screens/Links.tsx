import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { LINK_STATUS_NAMES } from "@shortener/vocabulary";
import { Link } from "../router.tsx";
import { messageOf, useTRPC, type Inputs } from "../trpc.ts";
import { ErrorBanner, Field, Pager, useDebounced } from "../ui.tsx";

type ListInput = Inputs["links"]["list"];
type Filters = {
  search: string;
  search_by: "title" | "alias" | "url";
  status: 0 | 1 | 2 | 3;
  domain_id: number | "";
  space_id: number | "";
  pixel_id: number | "";
  sort_by: "id" | "clicks" | "title" | "alias" | "url";
  sort: "asc" | "desc";
  per_page: 10 | 25 | 50 | 100;
  page: number;
};
const INITIAL: Filters = { search: "", search_by: "title", status: 0, domain_id: "", space_id: "", pixel_id: "", sort_by: "id", sort: "desc", per_page: 25, page: 1 };

/** The links list: every filter of CONTRACT §5, sort, paging, search as you type, and bulk actions. */
export function LinksScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [filters, setFilters] = useState<Filters>(INITIAL);
  const search = useDebounced(filters.search, 250);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const set = <K extends keyof Filters>(key: K, value: Filters[K]) => setFilters((f) => ({ ...f, [key]: value, page: key === "page" ? (value as number) : 1 }));

  const input: ListInput = {
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
  };
  const list = useQuery({ ...trpc.links.list.queryOptions(input), placeholderData: keepPreviousData });
  const domains = useQuery(trpc.domains.list.queryOptions({ per_page: 100 }));
  const spaces = useQuery(trpc.spaces.list.queryOptions({ per_page: 100 }));
  const pixels = useQuery(trpc.pixels.list.queryOptions({ per_page: 100 }));

  const rows = list.data?.data ?? [];
  const meta = list.data?.meta;
  useEffect(() => setSelected(new Set()), [list.data]);

  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.links.pathKey() });
  const bulkDelete = useMutation(trpc.links.bulkDelete.mutationOptions({ onSuccess: refresh }));
  const bulkUpdate = useMutation(trpc.links.bulkUpdate.mutationOptions({ onSuccess: refresh }));
  const bulkError = bulkDelete.error ?? bulkUpdate.error;
  const ids = [...selected];
  const allSelected = rows.length > 0 && rows.every((r) => selected.has(r.id));

  return (
    <section aria-labelledby="links-title">
      <div className="title-row">
        <h1 id="links-title">Links</h1>
        <Link to="/links/new" className="button">
          New link
        </Link>
      </div>

      <form className="filters" role="search" aria-label="Filter links" onSubmit={(e) => e.preventDefault()}>
        <Field label="Search">{(p) => <input {...p} type="search" value={filters.search} onChange={(e) => set("search", e.target.value)} placeholder="Type to search" />}</Field>
        <Field label="Search in">
          {(p) => (
            <select {...p} value={filters.search_by} onChange={(e) => set("search_by", e.target.value as Filters["search_by"])}>
              <option value="title">Title</option>
              <option value="alias">Alias</option>
              <option value="url">URL</option>
            </select>
          )}
        </Field>
        <Field label="Status">
          {(p) => (
            <select {...p} value={filters.status} onChange={(e) => set("status", Number(e.target.value) as Filters["status"])}>
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
            <select {...p} value={filters.domain_id} onChange={(e) => set("domain_id", e.target.value ? Number(e.target.value) : "")}>
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
            <select {...p} value={filters.space_id} onChange={(e) => set("space_id", e.target.value ? Number(e.target.value) : "")}>
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
            <select {...p} value={filters.pixel_id} onChange={(e) => set("pixel_id", e.target.value ? Number(e.target.value) : "")}>
              <option value="">Any</option>
              {pixels.data?.data.map((x) => (
                <option key={x.id} value={x.id}>
                  {x.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Sort by">
          {(p) => (
            <select {...p} value={filters.sort_by} onChange={(e) => set("sort_by", e.target.value as Filters["sort_by"])}>
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
            <select {...p} value={filters.sort} onChange={(e) => set("sort", e.target.value as Filters["sort"])}>
              <option value="desc">Descending</option>
              <option value="asc">Ascending</option>
            </select>
          )}
        </Field>
        <Field label="Per page">
          {(p) => (
            <select {...p} value={filters.per_page} onChange={(e) => set("per_page", Number(e.target.value) as Filters["per_page"])}>
              {[10, 25, 50, 100].map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          )}
        </Field>
      </form>

      <div className="bulk" role="region" aria-label="Bulk actions">
        <span aria-live="polite">{selected.size ? `${selected.size} selected` : "Select links for bulk actions"}</span>
        <button type="button" disabled={!selected.size || bulkUpdate.isPending} onClick={() => bulkUpdate.mutate({ ids, disabled: 1 })}>
          Disable
        </button>
        <button type="button" disabled={!selected.size || bulkUpdate.isPending} onClick={() => bulkUpdate.mutate({ ids, disabled: 0 })}>
          Enable
        </button>
        <button
          type="button"
          className="danger"
          disabled={!selected.size || bulkDelete.isPending}
          onClick={() => {
            if (window.confirm(`Delete ${selected.size} link${selected.size === 1 ? "" : "s"}? This cannot be undone.`)) bulkDelete.mutate({ ids });
          }}
        >
          Delete
        </button>
      </div>
      <ErrorBanner message={bulkError ? messageOf(bulkError) : list.error ? messageOf(list.error) : null} />

      <div className="table-wrap">
        <table className="links">
          <caption className="visually-hidden">Your links{meta ? `, ${meta.total} in all` : ""}</caption>
          <thead>
            <tr>
              <th scope="col">
                <input type="checkbox" aria-label="Select every link on this page" checked={allSelected} onChange={(e) => setSelected(e.target.checked ? new Set(rows.map((r) => r.id)) : new Set())} />
              </th>
              <th scope="col">Link</th>
              <th scope="col">Destination</th>
              <th scope="col">Status</th>
              <th scope="col" className="num">
                Clicks
              </th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((link) => (
              <tr key={link.id}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Select ${link.alias}`}
                    checked={selected.has(link.id)}
                    onChange={(e) =>
                      setSelected((s) => {
                        const next = new Set(s);
                        if (e.target.checked) next.add(link.id);
                        else next.delete(link.id);
                        return next;
                      })
                    }
                  />
                </td>
                <td data-label="Link">
                  <Link to={`/links/${link.id}`}>{link.title ?? link.alias}</Link>
                  <div className="muted small">{link.short_url}</div>
                </td>
                <td data-label="Destination" className="url">
                  {link.url}
                </td>
                <td data-label="Status">
                  <span className={`badge status-${link.status}`}>{LINK_STATUS_NAMES[link.status]}</span>
                </td>
                <td data-label="Clicks" className="num">
                  {link.clicks}
                </td>
                <td>
                  <Link to={`/links/${link.id}/edit`} aria-label={`Edit ${link.alias}`}>
                    Edit
                  </Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {list.isPending ? <p aria-live="polite">Loading…</p> : rows.length === 0 ? <p className="empty">No links match.</p> : null}
      </div>

      <Pager meta={meta} page={filters.page} onPage={(next) => set("page", next)} summary={meta ? ` · ${meta.total} links` : ""} isAlwaysShown />
    </section>
  );
}
