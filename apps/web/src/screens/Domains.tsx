import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { fieldErrorsOf, messageOf, useTRPC, type Domain } from "../trpc.ts";
import { copyText, ErrorBanner, Field } from "../ui.tsx";
import { useCan } from "../workspace.ts";

function Verification({ domain, canVerify }: { domain: Domain; canVerify: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [copied, setCopied] = useState<string | null>(null);
  const verify = useMutation(trpc.domains.verify.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.domains.pathKey() }) }));
  const record = domain.verification;
  if (!record) return null;
  const copy = (label: string, text: string) => void copyText(text).then((ok) => setCopied(ok ? label : null));
  return (
    <div className="verification">
      <p>Publish this DNS record, then verify:</p>
      <dl className="facts">
        <dt>Type</dt>
        <dd>
          <code>{record.type}</code>
        </dd>
        <dt>Name</dt>
        <dd>
          <code>{record.name}</code>{" "}
          <button type="button" className="ghost" onClick={() => copy("name", record.name)} aria-label={`Copy the record name for ${domain.name}`}>
            {copied === "name" ? "Copied" : "Copy"}
          </button>
        </dd>
        <dt>Value</dt>
        <dd>
          <code>{record.value}</code>{" "}
          <button type="button" className="ghost" onClick={() => copy("value", record.value)} aria-label={`Copy the record value for ${domain.name}`}>
            {copied === "value" ? "Copied" : "Copy"}
          </button>
        </dd>
      </dl>
      <ErrorBanner message={verify.error ? messageOf(verify.error) : null} />
      {canVerify ? (
        <button type="button" onClick={() => verify.mutate({ id: domain.id })} disabled={verify.isPending}>
          {verify.isPending ? "Looking the record up…" : `Verify ${domain.name}`}
        </button>
      ) : null}
    </div>
  );
}

/**
 * App links (CONTRACT §25): the two files with which the domain tells iOS and Android that an app opens
 * its links. Editable by admins and owners; an emptied field removes the file.
 */
function AppLinks({ domain, canChange }: { domain: Domain; canChange: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [aasa, setAasa] = useState(domain.apple_app_site_association ?? "");
  const [assetLinks, setAssetLinks] = useState(domain.asset_links ?? "");
  const [saved, setSaved] = useState(false);
  const save = useMutation(
    trpc.domains.update.mutationOptions({
      onSuccess: () => {
        setSaved(true);
        return queryClient.invalidateQueries({ queryKey: trpc.domains.pathKey() });
      },
    }),
  );
  const errors = fieldErrorsOf(save.error);
  const isSet = domain.apple_app_site_association !== null || domain.asset_links !== null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    save.mutate({ id: domain.id, apple_app_site_association: aasa.trim() ? aasa : null, asset_links: assetLinks.trim() ? assetLinks : null });
  };
  return (
    <details className="app-links">
      <summary>App links{isSet ? " (set)" : ""}</summary>
      <form onSubmit={submit} aria-label={`App links of ${domain.name}`}>
        <Field label="apple-app-site-association (JSON object)" errors={errors.apple_app_site_association} hint={`Served at /.well-known/apple-app-site-association on ${domain.name}. Empty: none.`}>
          {(p) => <textarea {...p} name="apple_app_site_association" rows={5} spellCheck={false} readOnly={!canChange} value={aasa} onChange={(e) => setAasa(e.target.value)} />}
        </Field>
        <Field label="assetlinks.json (JSON array)" errors={errors.asset_links} hint={`Served at /.well-known/assetlinks.json on ${domain.name}. Empty: none.`}>
          {(p) => <textarea {...p} name="asset_links" rows={5} spellCheck={false} readOnly={!canChange} value={assetLinks} onChange={(e) => setAssetLinks(e.target.value)} />}
        </Field>
        <ErrorBanner message={save.error && !Object.keys(errors).length ? messageOf(save.error) : null} />
        {canChange ? (
          <button type="submit" disabled={save.isPending}>
            Save app links
          </button>
        ) : null}
        {saved ? <span role="status"> Saved.</span> : null}
      </form>
    </details>
  );
}

/** Domains: add one, publish its verification record, verify it; delete (with its links). Changes: admins and owners (CONTRACT §24). */
export function DomainsScreen() {
  const trpc = useTRPC();
  const canChange = useCan("admin");
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const domains = useQuery(trpc.domains.list.queryOptions({ per_page: 100, sort_by: "name", sort: "asc" }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.domains.pathKey() });
  const create = useMutation(trpc.domains.create.mutationOptions({ onSuccess: () => (setName(""), refresh()) }));
  const remove = useMutation(trpc.domains.delete.mutationOptions({ onSuccess: refresh }));
  const errors = fieldErrorsOf(create.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ name });
  };
  return (
    <section aria-labelledby="domains-title">
      <h1 id="domains-title">Domains</h1>
      {canChange ? (
        <form className="inline-form" onSubmit={submit} aria-label="Add a domain">
          <Field label="New domain" errors={errors.name ?? (create.error && !Object.keys(errors).length ? [messageOf(create.error)] : undefined)}>
            {(p) => <input {...p} name="name" value={name} required onChange={(e) => setName(e.target.value)} placeholder="links.example.com" />}
          </Field>
          <button type="submit" disabled={create.isPending}>
            Add domain
          </button>
        </form>
      ) : (
        <p className="muted">Admins and owners of the workspace add, verify and delete its domains.</p>
      )}
      <ErrorBanner message={domains.error ? messageOf(domains.error) : remove.error ? messageOf(remove.error) : null} />
      <ul className="cards">
        {domains.data?.data.map((d) => (
          <li key={d.id} className="card">
            <div className="title-row">
              <h2>{d.name}</h2>
              <span className={`badge ${d.verified ? "status-1" : "status-2"}`}>{d.verified ? "Verified" : "Unverified"}</span>
            </div>
            <Verification domain={d} canVerify={canChange} />
            <AppLinks domain={d} canChange={canChange} />
            {canChange ? (
              <button type="button" className="danger ghost" onClick={() => window.confirm(`Delete ${d.name} and every link on it?`) && remove.mutate({ id: d.id })} aria-label={`Delete ${d.name}`}>
                Delete
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      {domains.data?.data.length === 0 ? <p className="empty">No domains yet.</p> : null}
    </section>
  );
}
