import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { messageOf, useTRPC, type Outputs } from "../trpc.ts";
import { ErrorBanner, formatMoment } from "../ui.tsx";

type ImportJob = Outputs["imports"]["list"]["data"][number];
const LIVE = new Set(["queued", "running"]);
const BADGE: Record<string, string> = { queued: "status-2", running: "status-2", completed: "status-1", failed: "status-3" };

/** A CSV cell: quoted when it holds a comma, quote or line break (RFC 4180). */
const cell = (v: string | number | null) => {
  const s = v === null ? "" : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** A job's row errors (the API's first 1,000), shown and downloadable as CSV (built here from tRPC's answer). */
function RowErrors({ job }: { job: ImportJob }) {
  const trpc = useTRPC();
  const detail = useQuery(trpc.imports.get.queryOptions({ id: job.id }));
  if (detail.isError) return <ErrorBanner message={messageOf(detail.error)} />;
  if (!detail.data) return <p aria-live="polite">Loading…</p>;
  const errors = detail.data.errors ?? [];
  const csv = ["line,field,message", ...errors.map((e) => [e.line, e.field, e.message].map(cell).join(","))].join("\r\n") + "\r\n";
  return (
    <div className="deliveries">
      <p>
        <a href={`data:text/csv;charset=utf-8,${encodeURIComponent(csv)}`} download={`import-${job.id}-errors.csv`}>
          Download the errors as CSV
        </a>{" "}
        <span className="muted small">{errors.length < job.failed_rows ? `(the first ${errors.length} of ${job.failed_rows})` : `(${errors.length})`}</span>
      </p>
      <div className="table-wrap">
        <table className="stack">
          <caption className="visually-hidden">Row errors of import {job.id}</caption>
          <thead>
            <tr>
              <th scope="col" className="num">
                Line
              </th>
              <th scope="col">Field</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {errors.slice(0, 100).map((e, i) => (
              <tr key={i}>
                <td data-label="Line" className="num">
                  {e.line}
                </td>
                <td data-label="Field">{e.field ?? "—"}</td>
                <td data-label="Message">{e.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function ImportCard({ job }: { job: ImportJob }) {
  const [open, setOpen] = useState(false);
  const done = job.processed_rows;
  const total = job.total_rows;
  const errorsId = `import-errors-${job.id}`;
  return (
    <li className="card">
      <div className="title-row">
        <h2>Import {job.id}</h2>
        <span className={`badge ${BADGE[job.status] ?? "status-2"}`}>{job.status}</span>
      </div>
      <p>
        <progress max={Math.max(total, 1)} value={job.status === "completed" ? Math.max(total, 1) : done} aria-label={`Progress of import ${job.id}`} />{" "}
        <span>
          {done} of {total} rows
        </span>
      </p>
      <dl className="facts">
        <dt>Created</dt>
        <dd>
          {job.created_rows} {job.created_rows === 1 ? "link" : "links"} ({job.skipped_rows} skipped, {job.failed_rows} failed)
        </dd>
        <dt>Uploaded</dt>
        <dd>{formatMoment(job.created_at)}</dd>
        <dt>Finished</dt>
        <dd>{formatMoment(job.finished_at, LIVE.has(job.status) ? "not yet" : "—")}</dd>
        {job.failure_reason ? (
          <>
            <dt>Failure</dt>
            <dd>{job.failure_reason}</dd>
          </>
        ) : null}
      </dl>
      {job.failed_rows > 0 ? (
        <>
          <button type="button" className="ghost" aria-expanded={open} aria-controls={errorsId} onClick={() => setOpen(!open)}>
            {open ? "Hide the row errors" : `Row errors of import ${job.id}`}
          </button>
          <div id={errorsId}>{open ? <RowErrors job={job} /> : null}</div>
        </>
      ) : null}
    </li>
  );
}

/** Imports (CONTRACT §12): the caller's jobs with live progress (polled every second while one runs). */
export function ImportsScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const jobs = useQuery({
    ...trpc.imports.list.queryOptions({ page, per_page: 25 }),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (query.state.data?.data.some((j) => LIVE.has(j.status)) ? 1000 : false),
  });
  const meta = jobs.data?.meta;
  return (
    <section aria-labelledby="imports-title">
      <div className="title-row">
        <h1 id="imports-title">Imports</h1>
        <button type="button" className="ghost" onClick={() => void queryClient.invalidateQueries({ queryKey: trpc.imports.pathKey() })}>
          Refresh
        </button>
      </div>
      <p className="muted">
        Uploading a CSV file is not in the dashboard yet: send it with an API key holding <code>imports:write</code> to <code>POST /api/v1/imports</code>. Its progress shows here.
      </p>
      <ErrorBanner message={jobs.error ? messageOf(jobs.error) : null} />
      <ul className="cards" aria-label="Your imports" aria-live="polite">
        {jobs.data?.data.map((j) => (
          <ImportCard key={j.id} job={j} />
        ))}
      </ul>
      {jobs.data?.data.length === 0 ? <p className="empty">No imports yet.</p> : null}
      {meta && meta.last_page > 1 ? (
        <nav className="pager" aria-label="Pages">
          <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span>
            Page {meta.current_page} of {meta.last_page}
          </span>
          <button type="button" disabled={page >= meta.last_page} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </nav>
      ) : null}
    </section>
  );
}
