import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { API_KEY_SCOPES, type Scope } from "@shortener/vocabulary";
import { fieldErrorsOf, messageOf, useTRPC } from "../trpc.ts";
import { CheckGroup, ErrorBanner, Field, formatMoment, Pager, SecretOnce } from "../ui.tsx";

const SCOPE_HINTS: Record<Scope, string> = {
  "links:read": "links, spaces, pixels, QR codes, exports",
  "links:write": "change links, spaces, pixels",
  "domains:read": "domains",
  "domains:write": "add, verify, delete domains",
  "stats:read": "statistics",
  "imports:write": "upload and follow imports",
  account: "account, keys, webhooks: as strong as a full key",
};

/** Named, scoped, expiring API keys (CONTRACT §17): list, create (the secret shown once), delete. */
export function ApiKeysScreen({ scopes: held }: { scopes: readonly Scope[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<Scope[]>(held.includes("links:read") ? ["links:read"] : []);
  const [expiresAt, setExpiresAt] = useState("");
  const [page, setPage] = useState(1);
  const [issued, setIssued] = useState<{ name: string; secret: string } | null>(null);
  const keys = useQuery({ ...trpc.account.apiKeys.list.queryOptions({ page, per_page: 25 }), placeholderData: keepPreviousData });
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.account.apiKeys.pathKey() });
  const create = useMutation(
    trpc.account.apiKeys.create.mutationOptions({
      onSuccess: (key) => {
        setIssued({ name: key.name ?? "", secret: key.api_key });
        setName("");
        setExpiresAt("");
        void refresh();
      },
    }),
  );
  const remove = useMutation(trpc.account.apiKeys.delete.mutationOptions({ onSuccess: refresh }));
  const errors = fieldErrorsOf(create.error);
  const otherError = create.error && !Object.keys(errors).length ? messageOf(create.error) : null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setIssued(null);
    create.mutate({ name, scopes, ...(expiresAt ? { expires_at: expiresAt } : {}) });
  };
  const meta = keys.data?.meta;
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <p className="muted">Named keys for scripts, each allowed only what its scopes say. A new key holds at most the scopes of this session.</p>
      <form className="card editor" onSubmit={submit} aria-label="Create an API key">
        <h2>New key</h2>
        <Field label="Key name" errors={errors.name}>
          {(p) => <input {...p} value={name} required maxLength={100} onChange={(e) => setName(e.target.value)} placeholder="Nightly report" />}
        </Field>
        <CheckGroup label="Scopes" options={API_KEY_SCOPES.filter((s) => held.includes(s))} value={scopes} onChange={setScopes} errors={errors.scopes} describe={(s) => SCOPE_HINTS[s]} />
        <Field label="Expires on (optional)" errors={errors.expires_at} hint="Midnight UTC of that day. Empty: the key does not expire.">
          {(p) => <input {...p} type="date" value={expiresAt} onChange={(e) => setExpiresAt(e.target.value)} />}
        </Field>
        <ErrorBanner message={otherError} />
        <button type="submit" disabled={create.isPending}>
          Create key
        </button>
      </form>
      {issued ? (
        <SecretOnce
          testId="issued-key"
          secret={issued.secret}
          intro={
            <>
              The secret of <strong>{issued.name}</strong>, shown only now. Store it somewhere safe.
            </>
          }
        />
      ) : null}
      <h2>Your keys</h2>
      <ErrorBanner message={keys.error ? messageOf(keys.error) : remove.error ? messageOf(remove.error) : null} />
      <div className="table-wrap">
        <table className="keys stack">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Scopes</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.data?.data.map((k) => (
              <tr key={k.id}>
                <td data-label="Name">{k.name}</td>
                <td data-label="Prefix">
                  <code>{k.prefix}…</code>
                </td>
                <td data-label="Scopes">{k.scopes.join(", ")}</td>
                <td data-label="Expires">{formatMoment(k.expires_at, "never")}</td>
                <td data-label="Last used">{formatMoment(k.last_used_at, "never")}</td>
                <td>
                  <button
                    type="button"
                    className="danger ghost"
                    onClick={() => window.confirm(`Delete the key ${k.name ?? k.prefix}? Scripts using it stop working at once.`) && remove.mutate({ id: k.id })}
                    aria-label={`Delete the key ${k.name ?? k.prefix}`}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {keys.data?.data.length === 0 ? <p className="empty">No named keys yet.</p> : null}
      </div>
      <Pager meta={meta} page={page} onPage={setPage} />
    </section>
  );
}
