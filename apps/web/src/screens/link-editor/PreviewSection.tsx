import { Field } from "../../ui.tsx";
import type { LinkFormModel } from "./use-link-form.ts";

/** The Open Graph preview (CONTRACT §25): what Slack, X, Facebook, WhatsApp… show when the short link is shared. */
export function PreviewSection({ model }: { model: LinkFormModel }) {
  const { form, set, errorOf } = model;
  return (
    <fieldset>
      <legend>Link preview</legend>
      <p className="hint">Shown to link-preview bots (Slack, X, Facebook, WhatsApp, Discord…) instead of the redirect. People are still redirected. Empty: the destination&apos;s own preview.</p>
      <Field label="Preview headline" errors={errorOf("og_title")} hint="Up to 255 characters.">
        {(p) => <input {...p} name="og_title" maxLength={255} value={form.og_title} onChange={(e) => set("og_title", e.target.value)} />}
      </Field>
      <Field label="Preview description" errors={errorOf("og_description")} hint="Up to 1,000 characters.">
        {(p) => <textarea {...p} name="og_description" rows={3} maxLength={1000} value={form.og_description} onChange={(e) => set("og_description", e.target.value)} />}
      </Field>
      <Field label="Preview image URL" errors={errorOf("og_image")} hint="An http(s) address of the image.">
        {(p) => <input {...p} name="og_image" type="url" value={form.og_image} onChange={(e) => set("og_image", e.target.value)} placeholder="https://example.com/card.png" />}
      </Field>
    </fieldset>
  );
}
