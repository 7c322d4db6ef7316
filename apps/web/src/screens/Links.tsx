import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { Link } from "react-router";
import { messageOf, useTRPC } from "../trpc.ts";
import { ErrorBanner, Pager, useDebounced } from "../ui.tsx";
import { useCan } from "../workspace.ts";
import { BulkActions } from "./links/BulkActions.tsx";
import { FilterForm } from "./links/FilterForm.tsx";
import { INITIAL_FILTERS, listInputOf, withFilter, type LinkFilters } from "./links/link-filters.ts";
import { LinksTable } from "./links/LinksTable.tsx";

/** The links list: every filter of CONTRACT §5, sort, paging, search as you type, and bulk actions (editors and above). */
export function LinksScreen() {
  const trpc = useTRPC();
  const canEdit = useCan("editor");
  const [filters, setFilters] = useState<LinkFilters>(INITIAL_FILTERS);
  const search = useDebounced(filters.search, 250);
  const set = <K extends keyof LinkFilters>(key: K, value: LinkFilters[K]) => setFilters((f) => withFilter(f, key, value));
  const list = useQuery({ ...trpc.links.list.queryOptions(listInputOf(filters, search)), placeholderData: keepPreviousData });
  const rows = list.data?.data ?? [];
  const meta = list.data?.meta;
  // A new page of results (another filter, page, or a bulk change) starts with nothing selected.
  const [selected, setSelected] = useState<Set<number>>(new Set());
  useEffect(() => setSelected(new Set()), [list.data]);

  return (
    <section aria-labelledby="links-title">
      <div className="title-row">
        <h1 id="links-title">Links</h1>
        {canEdit ? (
          <Link to="/links/new" className="button">
            New link
          </Link>
        ) : null}
      </div>
      <FilterForm filters={filters} set={set} />
      {canEdit ? <BulkActions selected={selected} /> : null}
      <ErrorBanner message={list.error ? messageOf(list.error) : null} />
      <div className="table-wrap">
        <LinksTable rows={rows} total={meta?.total} selected={selected} onSelect={setSelected} canEdit={canEdit} />
        {list.isPending ? <p aria-live="polite">Loading…</p> : rows.length === 0 ? <p className="empty">No links match.</p> : null}
      </div>
      <Pager meta={meta} page={filters.page} onPage={(next) => set("page", next)} summary={meta ? ` · ${meta.total} links` : ""} isAlwaysShown />
    </section>
  );
}
