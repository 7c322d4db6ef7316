import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { fieldErrorsOf, messageOf, useTRPC } from "../trpc.ts";
import { ErrorBanner, Field } from "../ui.tsx";
import { useCan } from "../workspace.ts";

const COLORS = [1, 2, 3, 4, 5, 6] as const;

/** Spaces (CONTRACT §9): folders for links; deleting one leaves its links without a space. */
export function SpacesScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const canEdit = useCan("editor");
  const [name, setName] = useState("");
  const [color, setColor] = useState<(typeof COLORS)[number]>(1);
  const spaces = useQuery(trpc.spaces.list.queryOptions({ per_page: 100, sort_by: "name", sort: "asc" }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.spaces.pathKey() });
  const create = useMutation(trpc.spaces.create.mutationOptions({ onSuccess: () => (setName(""), refresh()) }));
  const remove = useMutation(trpc.spaces.delete.mutationOptions({ onSuccess: refresh }));
  const errors = fieldErrorsOf(create.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ name, color });
  };
  return (
    <section aria-labelledby="spaces-title">
      <h1 id="spaces-title">Spaces</h1>
      {canEdit ? (
        <form className="inline-form" onSubmit={submit} aria-label="Add a space">
          <Field label="New space" errors={errors.name}>
            {(p) => <input {...p} name="name" value={name} required maxLength={32} onChange={(e) => setName(e.target.value)} />}
          </Field>
          <Field label="Colour" errors={errors.color}>
            {(p) => (
              <select {...p} value={color} onChange={(e) => setColor(Number(e.target.value) as (typeof COLORS)[number])}>
                {COLORS.map((c) => (
                  <option key={c} value={c}>
                    Colour {c}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <button type="submit" disabled={create.isPending}>
            Add space
          </button>
        </form>
      ) : (
        <p className="muted">Editors, admins and owners of the workspace add and delete its spaces.</p>
      )}
      <ErrorBanner message={spaces.error ? messageOf(spaces.error) : remove.error ? messageOf(remove.error) : create.error && !Object.keys(errors).length ? messageOf(create.error) : null} />
      <ul className="plain-list">
        {spaces.data?.data.map((s) => (
          <li key={s.id}>
            <span className={`swatch color-${s.color}`} aria-hidden="true" />
            <span className="grow">{s.name}</span>
            {canEdit ? (
              <button type="button" className="danger ghost" onClick={() => window.confirm(`Delete the space ${s.name}?`) && remove.mutate({ id: s.id })} aria-label={`Delete ${s.name}`}>
                Delete
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      {spaces.data?.data.length === 0 ? <p className="empty">No spaces yet.</p> : null}
    </section>
  );
}
