import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { PIXEL_TYPES, type PixelType } from "@shortener/vocabulary";
import { fieldErrorsOf, messageOf, useTRPC } from "../trpc.ts";
import { ErrorBanner, Field } from "../ui.tsx";
import { useCan } from "../workspace.ts";

/** CONTRACT §9's pixel types (the compiler checks each against the API's input type). */

/** Pixels (CONTRACT §9): tracking snippets fired on the way to a link's destination. */
export function PixelsScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const canEdit = useCan("editor");
  const [name, setName] = useState("");
  const [type, setType] = useState<PixelType>("facebook");
  const [value, setValue] = useState("");
  const pixels = useQuery(trpc.pixels.list.queryOptions({ per_page: 100, sort_by: "name", sort: "asc" }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.pixels.pathKey() });
  const create = useMutation(trpc.pixels.create.mutationOptions({ onSuccess: () => (setName(""), setValue(""), refresh()) }));
  const remove = useMutation(trpc.pixels.delete.mutationOptions({ onSuccess: refresh }));
  const errors = fieldErrorsOf(create.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ name, type, value });
  };
  return (
    <section aria-labelledby="pixels-title">
      <h1 id="pixels-title">Pixels</h1>
      {canEdit ? (
        <form className="inline-form" onSubmit={submit} aria-label="Add a pixel">
          <Field label="Pixel name" errors={errors.name}>
            {(p) => <input {...p} name="name" value={name} required onChange={(e) => setName(e.target.value)} />}
          </Field>
          <Field label="Type" errors={errors.type}>
            {(p) => (
              <select {...p} value={type} onChange={(e) => setType(e.target.value as PixelType)}>
                {PIXEL_TYPES.map((t) => (
                  <option key={t}>{t}</option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Pixel id" errors={errors.value}>
            {(p) => <input {...p} name="value" value={value} required onChange={(e) => setValue(e.target.value)} />}
          </Field>
          <button type="submit" disabled={create.isPending}>
            Add pixel
          </button>
        </form>
      ) : (
        <p className="muted">Editors, admins and owners of the workspace add and delete its pixels.</p>
      )}
      <ErrorBanner message={pixels.error ? messageOf(pixels.error) : remove.error ? messageOf(remove.error) : create.error && !Object.keys(errors).length ? messageOf(create.error) : null} />
      <ul className="plain-list">
        {pixels.data?.data.map((x) => (
          <li key={x.id}>
            <span className="grow">
              {x.name}{" "}
              <span className="muted">
                ({x.type}: <code>{x.value}</code>)
              </span>
            </span>
            {canEdit ? (
              <button type="button" className="danger ghost" onClick={() => window.confirm(`Delete the pixel ${x.name}?`) && remove.mutate({ id: x.id })} aria-label={`Delete ${x.name}`}>
                Delete
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      {pixels.data?.data.length === 0 ? <p className="empty">No pixels yet.</p> : null}
    </section>
  );
}
