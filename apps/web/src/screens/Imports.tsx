import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { IMPORT_FORMAT_LABELS, IMPORT_FORMATS, type ImportFormat, type ImportStatus } from "@shortener/vocabulary";
import { messageOf, newIdempotencyKey, uploadImport, useTRPC, type Outputs } from "../trpc.ts";
import { ErrorBanner, Field, formatMoment, Pager } from "../ui.tsx";

type ImportJob = Outputs["imports"]["list"]["data"][number];
/** The states of a job still at work: the list is polled while one is. */
const LIVE: ReadonlySet<string> = new Set<ImportStatus>(["queued", "running"]);
const BADGE: Record<ImportStatus, string> = { queued: "status-2", running: "status-2", completed: "status-1", failed: "status-3" };
/** Rows of a job's errors shown as a table; the CSV has every one. */
const SHOWN_ERRORS = 100;

/** A job's row errors: the first ones as a table (tRPC's `imports.get`), every one as the API's CSV file. */
function RowErrors({ job }: { job: ImportJob }) {
  const trpc = useTRPC();
  const detail = useQuery(trpc.imports.get.queryOptions({ id: job.id }));
  if (detail.isError) return <ErrorBanner message={messageOf(detail.error)} />;
  if (!detail.data) return <p aria-live="polite">Loading…</p>;
  const errors = (detail.data.errors ?? []).slice(0, SHOWN_ERRORS);
  return (
    <div className="deliveries">
      <p>
        {/* REST's errors file, with the session cookie (a GET: no CSRF header needed). */}
        <a href={`/api/v1/imports/${job.id}/errors`} download={`import-${job.id}-errors.csv`}>
          Download the errors as CSV
        </a>{" "}
        <span className="muted small">
          ({job.failed_rows} {job.failed_rows === 1 ? "row" : "rows"}
          {errors.length < job.failed_rows ? `; the first ${errors.length} below` : ""})
        </span>
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
            {errors.map((e, i) => (
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
        <dt>Format</dt>
        <dd>{IMPORT_FORMAT_LABELS[job.format]}</dd>
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

/**
 * Upload a CSV file (CONTRACT §12): multipart to REST's `POST /api/v1/imports` with the session, a
 * default domain for rows that name none, and an Idempotency-Key per chosen file, so a retry after a
 * lost answer does not queue the file twice.
 */
function UploadForm({ onQueued }: { onQueued: (job: { id: number; isNew: boolean }) => void }) {
  const trpc = useTRPC();
  const domains = useQuery(trpc.domains.list.queryOptions({ per_page: 100 }));
  const [file, setFile] = useState<File | null>(null);
  /** The chosen default domain's id, "" for none; undefined until chosen: the first domain. */
  const [domainId, setDomainId] = useState<string | undefined>(undefined);
  /** How the file is read: this service's CSV, or another service's own export (CONTRACT §23). */
  const [format, setFormat] = useState<ImportFormat>("csv");
  const [idempotencyKey, setIdempotencyKey] = useState(newIdempotencyKey);
  /** Changed after each upload: a new, empty file input. */
  const [formKey, setFormKey] = useState(0);
  const chosenDomain = domainId ?? String(domains.data?.data[0]?.id ?? "");
  const upload = useMutation({
    mutationFn: (chosen: File) => uploadImport(chosen, { domainId: chosenDomain === "" ? null : Number(chosenDomain), format, idempotencyKey }),
    onSuccess: (answer) => {
      if (!answer.ok) return;
      setFile(null);
      setFormKey((k) => k + 1);
      setIdempotencyKey(newIdempotencyKey());
      onQueued({ id: answer.id, isNew: answer.isNew });
    },
  });
  const answer = upload.data;
  const errors = answer && !answer.ok ? answer.fieldErrors : {};
  const otherError = upload.error ? messageOf(upload.error) : answer && !answer.ok && !Object.keys(answer.fieldErrors).length ? answer.message : null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (file) upload.mutate(file);
  };
  return (
    <form className="card" onSubmit={submit} aria-label="Upload a CSV file" key={formKey}>
      <h2>Upload a CSV file</h2>
      <Field
        label="CSV file"
        errors={errors.file}
        hint="UTF-8 with a header row: url (required), and any of alias, domain, title, password, space_id, pixel_ids (;-separated), disabled, privacy, expiration_date, expiration_time, expiration_clicks, expiration_url. Each row is checked like a new link."
      >
        {(p) => (
          <input
            {...p}
            type="file"
            accept=".csv,text/csv"
            required
            onChange={(e) => {
              setFile(e.target.files?.[0] ?? null);
              setIdempotencyKey(newIdempotencyKey());
              upload.reset();
            }}
          />
        )}
      </Field>
      <Field
        label="File format"
        errors={errors.format}
        hint="Another service's export is read as that service writes it; its short URLs keep their aliases, on their domain when it is one of yours, else on the default domain."
      >
        {(p) => (
          <select
            {...p}
            value={format}
            onChange={(e) => {
              setFormat(e.target.value as ImportFormat);
              setIdempotencyKey(newIdempotencyKey());
              upload.reset();
            }}
          >
            {IMPORT_FORMATS.map((name) => (
              <option key={name} value={name}>
                {IMPORT_FORMAT_LABELS[name]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Default domain" errors={errors.domain_id} hint="For the rows that name no domain, and short URLs on a domain that is not yours.">
        {(p) => (
          <select
            {...p}
            value={chosenDomain}
            onChange={(e) => {
              setDomainId(e.target.value);
              setIdempotencyKey(newIdempotencyKey());
            }}
          >
            <option value="">None: every row names its domain</option>
            {domains.data?.data.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <ErrorBanner message={otherError} />
      <button type="submit" disabled={upload.isPending || !file}>
        {upload.isPending ? "Uploading…" : "Upload"}
      </button>
    </form>
  );
}

/** Imports (CONTRACT §12): upload a file, then the caller's jobs with live progress (polled every second while one runs). */
export function ImportsScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [queued, setQueued] = useState<{ id: number; isNew: boolean } | null>(null);
  const jobs = useQuery({
    ...trpc.imports.list.queryOptions({ page, per_page: 25 }),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (query.state.data?.data.some((j) => LIVE.has(j.status)) ? 1000 : false),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.imports.pathKey() });
  const meta = jobs.data?.meta;
  return (
    <section aria-labelledby="imports-title">
      <div className="title-row">
        <h1 id="imports-title">Imports</h1>
        <button type="button" className="ghost" onClick={() => void refresh()}>
          Refresh
        </button>
      </div>
      <UploadForm
        onQueued={(job) => {
          setQueued(job);
          setPage(1);
          void refresh();
        }}
      />
      {queued !== null ? (
        <p className="card issued" role="status">
          {queued.isNew ? `Import ${queued.id} is queued: its progress shows below.` : `That upload had already arrived: it is import ${queued.id}, below.`}
        </p>
      ) : null}
      <h2>Your imports</h2>
      <ErrorBanner message={jobs.error ? messageOf(jobs.error) : null} />
      <ul className="cards" aria-label="Your imports" aria-live="polite">
        {jobs.data?.data.map((j) => (
          <ImportCard key={j.id} job={j} />
        ))}
      </ul>
      {jobs.data?.data.length === 0 ? <p className="empty">No imports yet.</p> : null}
      <Pager meta={meta} page={page} onPage={setPage} />
    </section>
  );
}
