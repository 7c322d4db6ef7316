import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "@shortener/vocabulary";
import { fieldErrorsOf, messageOf, useTRPC, type Outputs } from "../trpc.ts";
import { CheckGroup, ErrorBanner, Field, formatMoment, Pager, SecretOnce } from "../ui.tsx";

type Webhook = Outputs["webhooks"]["get"];

/** One webhook's delivery attempts, newest first; refreshed every 5 s while open. */
function Deliveries({ webhook }: { webhook: Webhook }) {
  const trpc = useTRPC();
  const [page, setPage] = useState(1);
  const attempts = useQuery({ ...trpc.webhooks.deliveries.queryOptions({ id: webhook.id, page, per_page: 25 }), placeholderData: keepPreviousData, refetchInterval: 5000 });
  const meta = attempts.data?.meta;
  return (
    <div className="deliveries">
      <ErrorBanner message={attempts.error ? messageOf(attempts.error) : null} />
      <div className="table-wrap">
        <table className="stack">
          <caption className="visually-hidden">Deliveries of {webhook.url}</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col" className="num">
                Response
              </th>
              <th scope="col" className="num">
                Duration
              </th>
              <th scope="col">Next try</th>
            </tr>
          </thead>
          <tbody>
            {attempts.data?.data.map((a) => (
              <tr key={a.id}>
                <td data-label="When">{formatMoment(a.created_at)}</td>
                <td data-label="Event">
                  <code>{a.event}</code> <span className="muted small">try {a.attempt}</span>
                </td>
                <td data-label="Status">
                  <span className={`badge ${a.status === "succeeded" ? "status-1" : "status-2"}`}>{a.status}</span>
                  {a.error ? <span className="muted small"> {a.error}</span> : null}
                </td>
                <td data-label="Response" className="num">
                  {a.response_code ?? "—"}
                </td>
                <td data-label="Duration" className="num">
                  {a.duration_ms === null ? "—" : `${a.duration_ms} ms`}
                </td>
                <td data-label="Next try">{formatMoment(a.next_try_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {attempts.data?.data.length === 0 ? <p className="empty">No deliveries yet.</p> : null}
      </div>
      <Pager meta={meta} page={page} onPage={setPage} label={`Pages of deliveries to ${webhook.url}`} previousText="Newer" nextText="Older" />
    </div>
  );
}

/** Edits a webhook in place: URL, events and enabled, saved together with `webhooks.update`; the API's messages under their fields. */
function WebhookEditor({ webhook, onDone }: { webhook: Webhook; onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [url, setUrl] = useState(webhook.url);
  const [events, setEvents] = useState<WebhookEventType[]>(WEBHOOK_EVENT_TYPES.filter((e) => webhook.events.includes(e)));
  const [isEnabled, setIsEnabled] = useState(!webhook.disabled);
  const urlInput = useRef<HTMLInputElement>(null);
  // Opened by keyboard: the focus goes to the first field, not back to the top of the page.
  useEffect(() => {
    urlInput.current?.focus();
  }, []);
  const update = useMutation(
    trpc.webhooks.update.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.webhooks.pathKey() });
        onDone();
      },
    }),
  );
  const errors = fieldErrorsOf(update.error);
  const otherError = update.error && !Object.keys(errors).length ? messageOf(update.error) : null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({ id: webhook.id, url, events, disabled: isEnabled ? 0 : 1 });
  };
  return (
    <form className="webhook-editor" onSubmit={submit} aria-label={`Edit the webhook ${webhook.url}`}>
      <Field label="Endpoint URL" errors={errors.url}>
        {(p) => <input {...p} ref={urlInput} type="url" value={url} required onChange={(e) => setUrl(e.target.value)} />}
      </Field>
      <CheckGroup label="Events" options={WEBHOOK_EVENT_TYPES} value={events} onChange={setEvents} errors={errors.events} />
      <label className="check">
        <input type="checkbox" checked={isEnabled} onChange={(e) => setIsEnabled(e.target.checked)} />
        Enabled
      </label>
      <ErrorBanner message={otherError} />
      <div className="actions">
        <button type="submit" disabled={update.isPending}>
          Save webhook
        </button>
        <button type="button" className="ghost" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function WebhookCard({ webhook }: { webhook: Webhook }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [isEditing, setIsEditing] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  const closeEditor = () => {
    setIsEditing(false);
    editButton.current?.focus();
  };
  const editorId = `webhook-editor-${webhook.id}`;
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.pathKey() });
  const update = useMutation(trpc.webhooks.update.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.webhooks.delete.mutationOptions({ onSuccess: refresh }));
  const error = update.error ?? remove.error;
  const deliveriesId = `deliveries-${webhook.id}`;
  return (
    <li className="card">
      <div className="title-row">
        <h2 className="grow">
          <code>{webhook.url}</code>
        </h2>
        <span className={`badge ${webhook.disabled ? "status-3" : webhook.failing_since ? "status-2" : "status-1"}`}>
          {webhook.disabled ? "Disabled" : webhook.failing_since ? `Failing since ${formatMoment(webhook.failing_since)}` : "Enabled"}
        </span>
      </div>
      <p>
        <span className="muted">Events:</span> {webhook.events.join(", ")}
      </p>
      <ErrorBanner message={error ? messageOf(error) : null} />
      <div id={editorId}>{isEditing ? <WebhookEditor webhook={webhook} onDone={closeEditor} /> : null}</div>
      <div className="actions">
        <button
          type="button"
          className="ghost"
          ref={editButton}
          aria-expanded={isEditing}
          aria-controls={editorId}
          onClick={() => (isEditing ? closeEditor() : setIsEditing(true))}
          aria-label={`Edit the webhook ${webhook.url}`}
        >
          Edit
        </button>
        <button
          type="button"
          onClick={() => update.mutate({ id: webhook.id, disabled: webhook.disabled ? 0 : 1 })}
          disabled={update.isPending}
          aria-label={`${webhook.disabled ? "Enable" : "Disable"} the webhook ${webhook.url}`}
        >
          {webhook.disabled ? "Enable" : "Disable"}
        </button>
        <button
          type="button"
          className="ghost"
          aria-expanded={open}
          aria-controls={deliveriesId}
          onClick={() => setOpen(!open)}
          aria-label={`${open ? "Hide deliveries" : "Deliveries"} to ${webhook.url}`}
        >
          {open ? "Hide deliveries" : "Deliveries"}
        </button>
        <button
          type="button"
          className="danger ghost"
          onClick={() => window.confirm(`Delete the webhook to ${webhook.url}? Pending deliveries are dropped.`) && remove.mutate({ id: webhook.id })}
          aria-label={`Delete the webhook ${webhook.url}`}
        >
          Delete
        </button>
      </div>
      <div id={deliveriesId}>{open ? <Deliveries webhook={webhook} /> : null}</div>
    </li>
  );
}

/** Webhooks (CONTRACT §18): create (the signing secret shown once), edit in place, enable/disable, delete, deliveries. */
export function WebhooksScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<WebhookEventType[]>(["link.created"]);
  const [issued, setIssued] = useState<{ url: string; secret: string } | null>(null);
  const webhooks = useQuery(trpc.webhooks.list.queryOptions({ per_page: 100 }));
  const create = useMutation(
    trpc.webhooks.create.mutationOptions({
      onSuccess: (w) => {
        setIssued({ url: w.url, secret: w.secret });
        setUrl("");
        void queryClient.invalidateQueries({ queryKey: trpc.webhooks.pathKey() });
      },
    }),
  );
  const errors = fieldErrorsOf(create.error);
  const otherError = create.error && !Object.keys(errors).length ? messageOf(create.error) : null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setIssued(null);
    create.mutate({ url, events });
  };
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <p className="muted">Each event is POSTed to your URL, signed with the webhook's secret, and retried with backoff when it fails.</p>
      <form className="card" onSubmit={submit} aria-label="Add a webhook">
        <Field label="Endpoint URL" errors={errors.url}>
          {(p) => <input {...p} type="url" value={url} required onChange={(e) => setUrl(e.target.value)} placeholder="https://example.com/hooks/shortener" />}
        </Field>
        <CheckGroup label="Events" options={WEBHOOK_EVENT_TYPES} value={events} onChange={setEvents} errors={errors.events} />
        <ErrorBanner message={otherError} />
        <button type="submit" disabled={create.isPending}>
          Add webhook
        </button>
      </form>
      {issued ? (
        <SecretOnce
          testId="webhook-secret"
          secret={issued.secret}
          intro={
            <>
              The signing secret of <strong>{issued.url}</strong>, shown only now.
            </>
          }
        />
      ) : null}
      <ErrorBanner message={webhooks.error ? messageOf(webhooks.error) : null} />
      <ul className="cards" aria-label="Your webhooks">
        {webhooks.data?.data.map((w) => (
          <WebhookCard key={w.id} webhook={w} />
        ))}
      </ul>
      {webhooks.data?.data.length === 0 ? <p className="empty">No webhooks yet.</p> : null}
    </section>
  );
}
