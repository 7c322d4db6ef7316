import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { fieldErrorsOf, messageOf, useTRPC, type Me } from "../trpc.ts";
import { copyText, ErrorBanner, Field, Pager, useDebounced } from "../ui.tsx";

/** Admin only (CONTRACT §9): users, each created with a first API key shown once; delete with all their data. */
export function UsersScreen({ me }: { me: Me }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [search, setSearch] = useState("");
  const [page, setPage] = useState(1);
  const [issued, setIssued] = useState<{ email: string; apiKey: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const debounced = useDebounced(search, 250);
  const users = useQuery({ ...trpc.users.list.queryOptions({ page, per_page: 25, ...(debounced ? { search: debounced } : {}) }), placeholderData: keepPreviousData });
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.users.pathKey() });
  const create = useMutation(
    trpc.users.create.mutationOptions({
      onSuccess: (user) => {
        setIssued({ email: user.email, apiKey: user.api_key });
        setCopied(false);
        setEmail("");
        setName("");
        void refresh();
      },
    }),
  );
  const remove = useMutation(trpc.users.delete.mutationOptions({ onSuccess: refresh }));
  const errors = fieldErrorsOf(create.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ email, name });
  };
  const meta = users.data?.meta;
  return (
    <section aria-labelledby="users-title">
      <h1 id="users-title">Users</h1>
      <form className="inline-form" onSubmit={submit} aria-label="Add a user">
        <Field label="Email" errors={errors.email}>
          {(p) => <input {...p} type="email" value={email} required onChange={(e) => setEmail(e.target.value)} />}
        </Field>
        <Field label="Name" errors={errors.name}>
          {(p) => <input {...p} value={name} required onChange={(e) => setName(e.target.value)} />}
        </Field>
        <button type="submit" disabled={create.isPending}>
          Add user
        </button>
      </form>
      {issued ? (
        <div className="card issued" role="status">
          <p>
            The API key of <strong>{issued.email}</strong>, shown only now. They sign in to the dashboard with it once, then choose a password.
          </p>
          <code data-testid="issued-key">{issued.apiKey}</code>{" "}
          <button type="button" className="ghost" onClick={() => void copyText(issued.apiKey).then(setCopied)}>
            {copied ? "Copied" : "Copy"}
          </button>
        </div>
      ) : null}
      <ErrorBanner message={users.error ? messageOf(users.error) : remove.error ? messageOf(remove.error) : null} />
      <Field label="Search by email">{(p) => <input {...p} type="search" value={search} onChange={(e) => (setSearch(e.target.value), setPage(1))} />}</Field>
      <ul className="plain-list">
        {users.data?.data.map((u) => (
          <li key={u.id}>
            <span className="grow">
              {u.name} <span className="muted">{u.email}</span> {u.role === "admin" ? <span className="badge status-1">admin</span> : null}
            </span>
            {u.id === me.id ? null : (
              <button
                type="button"
                className="danger ghost"
                onClick={() => window.confirm(`Delete ${u.email} and all of their links, domains and statistics?`) && remove.mutate({ id: u.id })}
                aria-label={`Delete ${u.email}`}
              >
                Delete
              </button>
            )}
          </li>
        ))}
      </ul>
      <Pager meta={meta} page={page} onPage={setPage} />
    </section>
  );
}
