import { Link } from "react-router";
import { LINK_STATUS_NAMES } from "@shortener/vocabulary";
import type { Outputs } from "../../trpc.ts";

type Row = Outputs["links"]["list"]["data"][number];

/** One page of links, each with a checkbox for the bulk actions (and one for the whole page) and Edit: for editors and above (`canEdit`). */
export function LinksTable({
  rows,
  total,
  selected,
  onSelect,
  canEdit,
}: {
  rows: Row[];
  total: number | undefined;
  selected: ReadonlySet<number>;
  onSelect: (next: Set<number>) => void;
  canEdit: boolean;
}) {
  const isAllSelected = rows.length > 0 && rows.every((r) => selected.has(r.id));
  const toggle = (id: number, isChecked: boolean) => {
    const next = new Set(selected);
    if (isChecked) next.add(id);
    else next.delete(id);
    onSelect(next);
  };
  return (
    <table className={canEdit ? "links" : "links read-only"}>
      <caption className="visually-hidden">Your links{total !== undefined ? `, ${total} in all` : ""}</caption>
      <thead>
        <tr>
          {canEdit ? (
            <th scope="col">
              <input type="checkbox" aria-label="Select every link on this page" checked={isAllSelected} onChange={(e) => onSelect(e.target.checked ? new Set(rows.map((r) => r.id)) : new Set())} />
            </th>
          ) : null}
          <th scope="col">Link</th>
          <th scope="col">Destination</th>
          <th scope="col">Status</th>
          <th scope="col" className="num">
            Clicks
          </th>
          {canEdit ? (
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          ) : null}
        </tr>
      </thead>
      <tbody>
        {rows.map((link) => (
          <tr key={link.id}>
            {canEdit ? (
              <td>
                <input type="checkbox" aria-label={`Select ${link.alias}`} checked={selected.has(link.id)} onChange={(e) => toggle(link.id, e.target.checked)} />
              </td>
            ) : null}
            <td data-label="Link">
              <Link to={`/links/${link.id}`}>{link.title ?? link.alias}</Link>
              <div className="muted small">{link.short_url}</div>
            </td>
            <td data-label="Destination" className="url">
              {link.url}
            </td>
            <td data-label="Status">
              <span className={`badge status-${link.status}`}>{LINK_STATUS_NAMES[link.status]}</span>
              {link.health === "broken" ? (
                <>
                  {" "}
                  <span
                    className="badge health-broken"
                    title={`Destination broken: ${link.health_reason ?? "unknown"}${link.health_checked_at ? ` (checked ${link.health_checked_at.slice(0, 16).replace("T", " ")} UTC)` : ""}`}
                  >
                    Broken<span className="visually-hidden">: {link.health_reason}</span>
                  </span>
                </>
              ) : null}
            </td>
            <td data-label="Clicks" className="num">
              {link.clicks}
            </td>
            {canEdit ? (
              <td>
                <Link to={`/links/${link.id}/edit`} aria-label={`Edit ${link.alias}`}>
                  Edit
                </Link>
              </td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
