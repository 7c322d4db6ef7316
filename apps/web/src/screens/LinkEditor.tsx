import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { Link, useNavigate } from "react-router";
import { fieldErrorsOf, messageOf, useTRPC, type Link as LinkJson } from "../trpc.ts";
import { ErrorBanner } from "../ui.tsx";
import { ExpirationSection } from "./link-editor/ExpirationSection.tsx";
import { createInputOf, formOf, otherErrorsOf, updateInputOf } from "./link-editor/link-form.ts";
import { LinkSection } from "./link-editor/LinkSection.tsx";
import { PreviewSection } from "./link-editor/PreviewSection.tsx";
import { ProtectionSection } from "./link-editor/ProtectionSection.tsx";
import { TargetingSection } from "./link-editor/TargetingSection.tsx";
import { useLinkForm } from "./link-editor/use-link-form.ts";

/**
 * Create (`id` null) or edit a link, every field of CONTRACT §3–4; the API's 422 messages show under their
 * fields. The form model is in link-editor/link-form.ts, its state in use-link-form.ts, one file per fieldset.
 */
export function LinkEditorScreen({ id }: { id: number | null }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const isEditing = id !== null;
  const existing = useQuery({ ...trpc.links.get.queryOptions({ id: id ?? 0 }), enabled: isEditing });
  const domains = useQuery(trpc.domains.list.queryOptions({ per_page: 100 }));
  const spaces = useQuery(trpc.spaces.list.queryOptions({ per_page: 100 }));
  const pixels = useQuery(trpc.pixels.list.queryOptions({ per_page: 100 }));

  const done = async (link: LinkJson) => {
    await queryClient.invalidateQueries({ queryKey: trpc.links.pathKey() });
    await navigate(`/links/${link.id}`);
  };
  const create = useMutation(trpc.links.create.mutationOptions({ onSuccess: done }));
  const update = useMutation(trpc.links.update.mutationOptions({ onSuccess: done }));
  const mutation = isEditing ? update : create;
  const errors = fieldErrorsOf(mutation.error);
  const model = useLinkForm(errors);
  const { form, load } = model;

  // The link being edited fills the form once; a new link starts on the first domain.
  const [loadedId, setLoadedId] = useState<number | null>(null);
  useEffect(() => {
    if (existing.data && loadedId !== existing.data.id) {
      load(formOf(existing.data));
      setLoadedId(existing.data.id);
    }
  }, [existing.data, loadedId, load]);
  const firstDomain = domains.data?.data[0];
  useEffect(() => {
    if (!isEditing && firstDomain && form.domain_id === "") load((f) => ({ ...f, domain_id: String(firstDomain.id) }));
  }, [firstDomain, isEditing, form.domain_id, load]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    model.resetEdited();
    if (id === null) create.mutate(createInputOf(form));
    else update.mutate(updateInputOf(id, form));
  };

  if (isEditing && existing.isError) return <ErrorBanner message={messageOf(existing.error)} />;
  if (isEditing && !existing.data) return <p aria-live="polite">Loading…</p>;
  const otherErrors = otherErrorsOf(errors);

  return (
    <section aria-labelledby="editor-title">
      <h1 id="editor-title">{isEditing ? `Edit ${existing.data?.alias ?? "link"}` : "New link"}</h1>
      <form className="editor" onSubmit={submit} noValidate>
        {mutation.error && !Object.keys(errors).length ? <ErrorBanner message={messageOf(mutation.error)} /> : null}
        {otherErrors.length ? <ErrorBanner message={otherErrors.map(([f, m]) => `${f}: ${m.join(" ")}`).join(" ")} /> : null}
        <LinkSection model={model} options={{ domains: domains.data?.data, spaces: spaces.data?.data, pixels: pixels.data?.data }} isEditing={isEditing} />
        <TargetingSection model={model} />
        <ExpirationSection model={model} />
        <PreviewSection model={model} />
        <ProtectionSection model={model} hasPassword={Boolean(existing.data?.password)} hasStatsPassword={Boolean(existing.data?.privacy_password)} />
        <div className="actions">
          <button type="submit" disabled={mutation.isPending}>
            {isEditing ? "Save changes" : "Create link"}
          </button>
          <Link to={isEditing ? `/links/${id}` : "/"}>Cancel</Link>
        </div>
      </form>
    </section>
  );
}
