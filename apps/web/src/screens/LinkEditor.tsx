import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { Link, navigate } from "../router.tsx";
import { fieldErrorsOf, messageOf, useTRPC, type Inputs, type Link as LinkJson } from "../trpc.ts";
import { ErrorBanner, Field } from "../ui.tsx";

const PLATFORMS = ["iOS", "Android", "Windows", "OS X", "Linux", "Ubuntu", "Chrome OS"];
const TARGET_TYPES = [
  { value: 0, label: "None", group: null },
  { value: 1, label: "Country", group: "country" },
  { value: 2, label: "Platform", group: "platform" },
  { value: 3, label: "Language", group: "language" },
  { value: 4, label: "Rotation", group: "rotation" },
] as const;
type Group = "country" | "platform" | "language" | "rotation";
type Target = { key: string; value: string };

type Form = {
  url: string;
  domain_id: string;
  alias: string;
  title: string;
  password: string;
  removePassword: boolean;
  space_id: string;
  pixel_ids: number[];
  disabled: boolean;
  privacy: "0" | "1" | "2";
  privacy_password: string;
  expiration_url: string;
  expiration_date: string;
  expiration_time: string;
  expiration_clicks: string;
  target_type: 0 | 1 | 2 | 3 | 4;
  targets: Target[];
};

const EMPTY: Form = {
  url: "",
  domain_id: "",
  alias: "",
  title: "",
  password: "",
  removePassword: false,
  space_id: "",
  pixel_ids: [],
  disabled: false,
  privacy: "0",
  privacy_password: "",
  expiration_url: "",
  expiration_date: "",
  expiration_time: "",
  expiration_clicks: "0",
  target_type: 0,
  targets: [],
};

function formOf(link: LinkJson): Form {
  const targets = (link.country_target ?? link.platform_target ?? link.language_target ?? link.rotation_target?.map((r) => ({ key: "", value: r.value })) ?? []).map((t) => ({
    key: ("key" in t ? t.key : "") ?? "",
    value: t.value,
  }));
  return {
    ...EMPTY,
    url: link.url,
    domain_id: String(link.domain.id),
    alias: link.alias,
    title: link.title ?? "",
    space_id: link.space ? String(link.space.id) : "",
    pixel_ids: link.pixels.map((p) => p.id),
    disabled: link.disabled === 1,
    privacy: String(link.privacy) as Form["privacy"],
    expiration_url: link.expiration_url ?? "",
    expiration_date: link.expiration_date ?? "",
    expiration_time: link.expiration_time ?? "",
    expiration_clicks: String(link.expiration_clicks),
    target_type: link.target_type as Form["target_type"],
    targets,
  };
}

const groupOf = (type: Form["target_type"]): Group | null => TARGET_TYPES[type].group;
const orNull = (value: string) => (value.trim() === "" ? null : value.trim());

/** The fields both create and update send; `isUpdate`: empty values are null (clear), the password only when changed. */
function inputOf(form: Form, isUpdate: boolean) {
  const group = groupOf(form.target_type);
  const targets = form.targets.map((t) => (group === "rotation" ? { value: t.value.trim() } : { key: t.key.trim(), value: t.value.trim() }));
  const clear = <T,>(value: T | null) => (value === null ? (isUpdate ? null : undefined) : value);
  return {
    url: form.url.trim(),
    alias: form.alias.trim() || undefined,
    title: clear(orNull(form.title)),
    ...(form.password ? { password: form.password } : form.removePassword && isUpdate ? { password: null } : {}),
    space_id: clear(form.space_id ? Number(form.space_id) : null),
    pixel_ids: isUpdate ? form.pixel_ids : form.pixel_ids.length ? form.pixel_ids : undefined,
    disabled: form.disabled ? (1 as const) : (0 as const),
    privacy: Number(form.privacy) as 0 | 1 | 2,
    ...(form.privacy_password ? { privacy_password: form.privacy_password } : {}),
    expiration_url: clear(orNull(form.expiration_url)),
    expiration_date: clear(orNull(form.expiration_date)),
    expiration_time: clear(form.expiration_date ? orNull(form.expiration_time) : null),
    expiration_clicks: form.expiration_clicks === "" ? 0 : Number(form.expiration_clicks),
    target_type: form.target_type,
    ...(group ? { [group]: targets } : {}),
  };
}

/** Create or edit a link, every field of CONTRACT §3–4; the API's 422 messages show under their fields. */
export function LinkEditorScreen({ id }: { id: number | null }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const existing = useQuery({ ...trpc.links.get.queryOptions({ id: id ?? 0 }), enabled: id !== null });
  const domains = useQuery(trpc.domains.list.queryOptions({ per_page: 100 }));
  const spaces = useQuery(trpc.spaces.list.queryOptions({ per_page: 100 }));
  const pixels = useQuery(trpc.pixels.list.queryOptions({ per_page: 100 }));
  const [form, setForm] = useState<Form>(EMPTY);
  const [loadedId, setLoadedId] = useState<number | null>(null);

  useEffect(() => {
    if (existing.data && loadedId !== existing.data.id) {
      setForm(formOf(existing.data));
      setLoadedId(existing.data.id);
    }
  }, [existing.data, loadedId]);
  useEffect(() => {
    const first = domains.data?.data[0];
    if (id === null && first && form.domain_id === "") setForm((f) => ({ ...f, domain_id: String(first.id) }));
  }, [domains.data, id, form.domain_id]);

  const done = async (link: LinkJson) => {
    await queryClient.invalidateQueries({ queryKey: trpc.links.pathKey() });
    navigate(`/links/${link.id}`);
  };
  const create = useMutation(trpc.links.create.mutationOptions({ onSuccess: done }));
  const update = useMutation(trpc.links.update.mutationOptions({ onSuccess: done }));
  const mutation = id === null ? create : update;
  const errors = fieldErrorsOf(mutation.error);
  // A field's API message stays until that field is changed (or the form is sent again).
  const [edited, setEdited] = useState<Set<string>>(new Set());
  const TARGET_GROUPS = ["country", "platform", "language", "rotation", "target_type"];
  const errorOf = (field: string) => {
    const base = field.split(".")[0] ?? field;
    const key = TARGET_GROUPS.includes(base) ? "targets" : base === "domain_id" ? "domain_id" : base;
    return edited.has(key) ? undefined : errors[field];
  };
  const set = <K extends keyof Form>(key: K, value: Form[K]) => {
    setForm((f) => ({ ...f, [key]: value }));
    setEdited((e) => (e.has(key) ? e : new Set(e).add(key === "target_type" ? "targets" : key)));
  };
  const group = groupOf(form.target_type);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setEdited(new Set());
    if (id === null) create.mutate({ ...inputOf(form, false), domain_id: Number(form.domain_id) } as Inputs["links"]["create"]);
    else update.mutate({ id, ...inputOf(form, true) } as Inputs["links"]["update"]);
  };

  if (id !== null && existing.isError) return <ErrorBanner message={messageOf(existing.error)} />;
  if (id !== null && !existing.data) return <p aria-live="polite">Loading…</p>;
  const otherErrors = Object.entries(errors).filter(([field]) => !KNOWN_FIELDS.some((f) => field === f || field.startsWith(`${f}.`)));

  return (
    <section aria-labelledby="editor-title">
      <h1 id="editor-title">{id === null ? "New link" : `Edit ${existing.data?.alias ?? "link"}`}</h1>
      <form className="editor" onSubmit={submit} noValidate>
        {mutation.error && !Object.keys(errors).length ? <ErrorBanner message={messageOf(mutation.error)} /> : null}
        {otherErrors.length ? <ErrorBanner message={otherErrors.map(([f, m]) => `${f}: ${m.join(" ")}`).join(" ")} /> : null}
        <fieldset>
          <legend>Link</legend>
          <Field label="Destination URL" errors={errorOf("url")}>
            {(p) => <input {...p} name="url" type="url" required value={form.url} onChange={(e) => set("url", e.target.value)} placeholder="https://example.com/page" />}
          </Field>
          <Field label="Domain" errors={errorOf("domain_id")} {...(id !== null ? { hint: "The domain of a link cannot change." } : {})}>
            {(p) => (
              <select {...p} name="domain_id" value={form.domain_id} disabled={id !== null} onChange={(e) => set("domain_id", e.target.value)}>
                {domains.data?.data.map((d) => (
                  <option key={d.id} value={d.id}>
                    {d.name}
                    {d.verified ? "" : " (unverified)"}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Alias" errors={errorOf("alias")} hint="Letters, digits, - and _. Empty: a random one.">
            {(p) => <input {...p} name="alias" value={form.alias} onChange={(e) => set("alias", e.target.value)} />}
          </Field>
          <Field label="Title" errors={errorOf("title")}>
            {(p) => <input {...p} name="title" value={form.title} onChange={(e) => set("title", e.target.value)} />}
          </Field>
          <Field label="Space" errors={errorOf("space_id")}>
            {(p) => (
              <select {...p} name="space_id" value={form.space_id} onChange={(e) => set("space_id", e.target.value)}>
                <option value="">None</option>
                {spaces.data?.data.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <div className="field">
            <span className="label-like" id="pixels-label">
              Pixels
            </span>
            <div role="group" aria-labelledby="pixels-label" className="checks">
              {pixels.data?.data.length ? null : <span className="muted">No pixels yet.</span>}
              {pixels.data?.data.map((x) => (
                <label key={x.id} className="check">
                  <input
                    type="checkbox"
                    checked={form.pixel_ids.includes(x.id)}
                    onChange={(e) => set("pixel_ids", e.target.checked ? [...form.pixel_ids, x.id] : form.pixel_ids.filter((i) => i !== x.id))}
                  />
                  {x.name} ({x.type})
                </label>
              ))}
            </div>
            {errorOf("pixel_ids") ? (
              <p className="error" role="alert">
                {errorOf("pixel_ids")?.join(" ")}
              </p>
            ) : null}
          </div>
          <label className="check">
            <input type="checkbox" name="disabled" checked={form.disabled} onChange={(e) => set("disabled", e.target.checked)} />
            Disabled (visitors get a 404)
          </label>
        </fieldset>

        <fieldset>
          <legend>Targeting</legend>
          <Field label="Target by" errors={errorOf("target_type")}>
            {(p) => (
              <select
                {...p}
                name="target_type"
                value={form.target_type}
                onChange={(e) => {
                  const type = Number(e.target.value) as Form["target_type"];
                  setForm((f) => ({ ...f, target_type: type, targets: type === 0 ? [] : f.targets.length ? f.targets : [{ key: "", value: "" }] }));
                  setEdited((e) => new Set(e).add("targets"));
                }}
              >
                {TARGET_TYPES.map((t) => (
                  <option key={t.value} value={t.value}>
                    {t.label}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {group ? (
            <ol className="targets">
              {form.targets.map((t, i) => (
                <li key={i}>
                  {group !== "rotation" ? (
                    <Field label={group === "country" ? "Country code" : group === "platform" ? "Platform" : "Language code"} errors={errorOf(`${group}.${i}.key`)}>
                      {(p) =>
                        group === "platform" ? (
                          <select
                            {...p}
                            value={t.key}
                            onChange={(e) =>
                              set(
                                "targets",
                                form.targets.map((x, j) => (j === i ? { ...x, key: e.target.value } : x)),
                              )
                            }
                          >
                            <option value="">Choose…</option>
                            {PLATFORMS.map((name) => (
                              <option key={name}>{name}</option>
                            ))}
                          </select>
                        ) : (
                          <input
                            {...p}
                            name={`${group}-key-${i}`}
                            value={t.key}
                            maxLength={2}
                            placeholder={group === "country" ? "DE" : "de"}
                            onChange={(e) =>
                              set(
                                "targets",
                                form.targets.map((x, j) => (j === i ? { ...x, key: e.target.value } : x)),
                              )
                            }
                          />
                        )
                      }
                    </Field>
                  ) : null}
                  <Field label="Destination for this entry" errors={errorOf(`${group}.${i}.value`) ?? errorOf(`${group}.${i}`)}>
                    {(p) => (
                      <input
                        {...p}
                        name={`${group}-value-${i}`}
                        type="url"
                        value={t.value}
                        onChange={(e) =>
                          set(
                            "targets",
                            form.targets.map((x, j) => (j === i ? { ...x, value: e.target.value } : x)),
                          )
                        }
                      />
                    )}
                  </Field>
                  <button
                    type="button"
                    className="ghost"
                    onClick={() =>
                      set(
                        "targets",
                        form.targets.filter((_, j) => j !== i),
                      )
                    }
                    aria-label={`Remove entry ${i + 1}`}
                  >
                    Remove
                  </button>
                </li>
              ))}
            </ol>
          ) : null}
          {errorOf(group ?? "_") ? (
            <p className="error" role="alert">
              {errorOf(group ?? "_")?.join(" ")}
            </p>
          ) : null}
          {group ? (
            <button type="button" onClick={() => set("targets", [...form.targets, { key: "", value: "" }])}>
              Add entry
            </button>
          ) : null}
        </fieldset>

        <fieldset>
          <legend>Expiration</legend>
          <div className="row">
            <Field label="Expires on (UTC date)" errors={errorOf("expiration_date")}>
              {(p) => <input {...p} name="expiration_date" type="date" value={form.expiration_date} onChange={(e) => set("expiration_date", e.target.value)} />}
            </Field>
            <Field label="At (UTC time)" errors={errorOf("expiration_time")}>
              {(p) => <input {...p} name="expiration_time" type="time" value={form.expiration_time} onChange={(e) => set("expiration_time", e.target.value)} />}
            </Field>
          </div>
          <Field label="Click limit (0: none)" errors={errorOf("expiration_clicks")}>
            {(p) => <input {...p} name="expiration_clicks" type="number" min={0} inputMode="numeric" value={form.expiration_clicks} onChange={(e) => set("expiration_clicks", e.target.value)} />}
          </Field>
          <Field label="After expiry, send visitors to" errors={errorOf("expiration_url")}>
            {(p) => <input {...p} name="expiration_url" type="url" value={form.expiration_url} onChange={(e) => set("expiration_url", e.target.value)} />}
          </Field>
        </fieldset>

        <fieldset>
          <legend>Protection</legend>
          <Field label={existing.data?.password ? "New password (a password is set)" : "Password"} errors={errorOf("password")}>
            {(p) => <input {...p} name="password" type="password" autoComplete="new-password" value={form.password} onChange={(e) => set("password", e.target.value)} />}
          </Field>
          {existing.data?.password ? (
            <label className="check">
              <input type="checkbox" checked={form.removePassword} onChange={(e) => set("removePassword", e.target.checked)} />
              Remove the password
            </label>
          ) : null}
          <Field label="Stats page" errors={errorOf("privacy")}>
            {(p) => (
              <select {...p} name="privacy" value={form.privacy} onChange={(e) => set("privacy", e.target.value as Form["privacy"])}>
                <option value="0">Public</option>
                <option value="1">Private (owner only)</option>
                <option value="2">Password protected</option>
              </select>
            )}
          </Field>
          {form.privacy === "2" ? (
            <Field label={existing.data?.privacy_password ? "New stats password (one is set)" : "Stats password"} errors={errorOf("privacy_password")}>
              {(p) => <input {...p} name="privacy_password" type="password" autoComplete="new-password" value={form.privacy_password} onChange={(e) => set("privacy_password", e.target.value)} />}
            </Field>
          ) : null}
        </fieldset>

        <div className="actions">
          <button type="submit" disabled={mutation.isPending}>
            {id === null ? "Create link" : "Save changes"}
          </button>
          <Link to={id === null ? "/" : `/links/${id}`}>Cancel</Link>
        </div>
      </form>
    </section>
  );
}

const KNOWN_FIELDS = [
  "url",
  "domain_id",
  "alias",
  "title",
  "password",
  "space_id",
  "pixel_ids",
  "privacy",
  "privacy_password",
  "expiration_url",
  "expiration_date",
  "expiration_time",
  "expiration_clicks",
  "target_type",
  "country",
  "platform",
  "language",
  "rotation",
];
