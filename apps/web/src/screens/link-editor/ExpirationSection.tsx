import { Field } from "../../ui.tsx";
import type { LinkFormModel } from "./use-link-form.ts";

/** Expiration: a moment (UTC), a click limit, and where visitors go afterwards. */
export function ExpirationSection({ model }: { model: LinkFormModel }) {
  const { form, set, errorOf } = model;
  return (
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
  );
}
