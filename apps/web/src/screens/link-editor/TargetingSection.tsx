import { PLATFORMS, type TargetGroup, type TargetType } from "@shortener/vocabulary";
import { Field } from "../../ui.tsx";
import { TARGET_TYPE_OPTIONS, type TargetEntry } from "./link-form.ts";
import type { LinkFormModel } from "./use-link-form.ts";

const KEY_LABELS: Record<Exclude<TargetGroup, "rotation">, string> = { country: "Country code", platform: "Platform", language: "Language code" };

/** Targeting: the type, then one row per entry (a key, except for rotation, and its destination). */
export function TargetingSection({ model }: { model: LinkFormModel }) {
  const { form, group, errorOf, setTargetType, addTarget } = model;
  const groupErrors = errorOf(group ?? "_");
  return (
    <fieldset>
      <legend>Targeting</legend>
      <Field label="Target by" errors={errorOf("target_type")}>
        {(p) => (
          <select {...p} name="target_type" value={form.target_type} onChange={(e) => setTargetType(Number(e.target.value) as TargetType)}>
            {TARGET_TYPE_OPTIONS.map((t) => (
              <option key={t.value} value={t.value}>
                {t.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      {group ? (
        <ol className="targets">
          {form.targets.map((entry, i) => (
            <TargetRow key={i} model={model} group={group} index={i} entry={entry} />
          ))}
        </ol>
      ) : null}
      {groupErrors ? (
        <p className="error" role="alert">
          {groupErrors.join(" ")}
        </p>
      ) : null}
      {group ? (
        <button type="button" onClick={addTarget}>
          Add entry
        </button>
      ) : null}
    </fieldset>
  );
}

/** One entry: its key (a code typed, or a platform chosen), its destination, and a Remove button. */
function TargetRow({ model, group, index, entry }: { model: LinkFormModel; group: TargetGroup; index: number; entry: TargetEntry }) {
  const { errorOf, updateTarget, removeTarget } = model;
  return (
    <li>
      {group !== "rotation" ? (
        <Field label={KEY_LABELS[group]} errors={errorOf(`${group}.${index}.key`)}>
          {(p) =>
            group === "platform" ? (
              <select {...p} value={entry.key} onChange={(e) => updateTarget(index, { key: e.target.value })}>
                <option value="">Choose…</option>
                {PLATFORMS.map((name) => (
                  <option key={name}>{name}</option>
                ))}
              </select>
            ) : (
              <input
                {...p}
                name={`${group}-key-${index}`}
                value={entry.key}
                maxLength={2}
                placeholder={group === "country" ? "DE" : "de"}
                onChange={(e) => updateTarget(index, { key: e.target.value })}
              />
            )
          }
        </Field>
      ) : null}
      <Field label="Destination for this entry" errors={errorOf(`${group}.${index}.value`) ?? errorOf(`${group}.${index}`)}>
        {(p) => <input {...p} name={`${group}-value-${index}`} type="url" value={entry.value} onChange={(e) => updateTarget(index, { value: e.target.value })} />}
      </Field>
      {group === "rotation" ? (
        <Field label="Weight (1–100, optional)" errors={errorOf(`rotation.${index}.weight`)}>
          {(p) => <input {...p} name={`rotation-weight-${index}`} inputMode="numeric" value={entry.weight ?? ""} onChange={(e) => updateTarget(index, { weight: e.target.value })} />}
        </Field>
      ) : null}
      <button type="button" className="ghost" onClick={() => removeTarget(index)} aria-label={`Remove entry ${index + 1}`}>
        Remove
      </button>
    </li>
  );
}
