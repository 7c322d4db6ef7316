import type { Outputs } from "../../trpc.ts";
import { Field } from "../../ui.tsx";
import type { LinkFormModel } from "./use-link-form.ts";

type Options = {
  domains: Outputs["domains"]["list"]["data"] | undefined;
  spaces: Outputs["spaces"]["list"]["data"] | undefined;
  pixels: Outputs["pixels"]["list"]["data"] | undefined;
};

/** The link itself: destination, domain (fixed once created), alias, title, space, pixels, disabled. */
export function LinkSection({ model, options, isEditing }: { model: LinkFormModel; options: Options; isEditing: boolean }) {
  const { form, set, errorOf } = model;
  const pixelErrors = errorOf("pixel_ids");
  return (
    <fieldset>
      <legend>Link</legend>
      <Field label="Destination URL" errors={errorOf("url")}>
        {(p) => <input {...p} name="url" type="url" required value={form.url} onChange={(e) => set("url", e.target.value)} placeholder="https://example.com/page" />}
      </Field>
      <Field label="Domain" errors={errorOf("domain_id")} {...(isEditing ? { hint: "The domain of a link cannot change." } : {})}>
        {(p) => (
          <select {...p} name="domain_id" value={form.domain_id} disabled={isEditing} onChange={(e) => set("domain_id", e.target.value)}>
            {options.domains?.map((d) => (
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
      <Field label="Tags" errors={errorOf("tags")} hint="Separated by commas; at most 20, each up to 32 characters.">
        {(p) => <input {...p} name="tags" value={form.tags} onChange={(e) => set("tags", e.target.value)} />}
      </Field>
      <Field label="Space" errors={errorOf("space_id")}>
        {(p) => (
          <select {...p} name="space_id" value={form.space_id} onChange={(e) => set("space_id", e.target.value)}>
            <option value="">None</option>
            {options.spaces?.map((s) => (
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
          {options.pixels?.length ? null : <span className="muted">No pixels yet.</span>}
          {options.pixels?.map((x) => (
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
        {pixelErrors ? (
          <p className="error" role="alert">
            {pixelErrors.join(" ")}
          </p>
        ) : null}
      </div>
      <label className="check">
        <input type="checkbox" name="disabled" checked={form.disabled} onChange={(e) => set("disabled", e.target.checked)} />
        Disabled (visitors get a 404)
      </label>
    </fieldset>
  );
}
