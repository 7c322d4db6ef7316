import { Field } from "../../ui.tsx";
import type { LinkForm } from "./link-form.ts";
import type { LinkFormModel } from "./use-link-form.ts";

/** Protection: the link's password (kept unless a new one is typed or it is removed) and its stats page's privacy. */
export function ProtectionSection({ model, hasPassword, hasStatsPassword }: { model: LinkFormModel; hasPassword: boolean; hasStatsPassword: boolean }) {
  const { form, set, errorOf } = model;
  return (
    <fieldset>
      <legend>Protection</legend>
      <Field label={hasPassword ? "New password (a password is set)" : "Password"} errors={errorOf("password")}>
        {(p) => <input {...p} name="password" type="password" autoComplete="new-password" value={form.password} onChange={(e) => set("password", e.target.value)} />}
      </Field>
      {hasPassword ? (
        <label className="check">
          <input type="checkbox" checked={form.removePassword} onChange={(e) => set("removePassword", e.target.checked)} />
          Remove the password
        </label>
      ) : null}
      <Field label="Stats page" errors={errorOf("privacy")}>
        {(p) => (
          <select {...p} name="privacy" value={form.privacy} onChange={(e) => set("privacy", e.target.value as LinkForm["privacy"])}>
            <option value="0">Public</option>
            <option value="1">Private (owner only)</option>
            <option value="2">Password protected</option>
          </select>
        )}
      </Field>
      {form.privacy === "2" ? (
        <Field label={hasStatsPassword ? "New stats password (one is set)" : "Stats password"} errors={errorOf("privacy_password")}>
          {(p) => <input {...p} name="privacy_password" type="password" autoComplete="new-password" value={form.privacy_password} onChange={(e) => set("privacy_password", e.target.value)} />}
        </Field>
      ) : null}
    </fieldset>
  );
}
