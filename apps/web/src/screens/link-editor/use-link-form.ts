import { useState } from "react";
import { TARGET_TYPES, type TargetType } from "@shortener/vocabulary";
import { EMPTY_FORM, formFieldOf, groupOf, type LinkForm, type TargetEntry } from "./link-form.ts";

/**
 * The editor's state: the form's values, and which fields changed since it was last sent. An API message
 * shows under its field until that field is changed (or the form is sent again).
 */
export function useLinkForm(apiErrors: Record<string, string[]>) {
  const [form, setForm] = useState<LinkForm>(EMPTY_FORM);
  const [edited, setEdited] = useState<ReadonlySet<string>>(new Set());
  const markEdited = (field: string) => setEdited((e) => (e.has(field) ? e : new Set(e).add(field)));

  const set = <K extends keyof LinkForm>(key: K, value: LinkForm[K]) => {
    setForm((f) => ({ ...f, [key]: value }));
    markEdited(key === "target_type" ? "targets" : key);
  };
  const setTargets = (change: (targets: TargetEntry[]) => TargetEntry[]) => {
    setForm((f) => ({ ...f, targets: change(f.targets) }));
    markEdited("targets");
  };

  return {
    form,
    /** The targeting group being edited (`country`, …), or null. */
    group: groupOf(form.target_type),
    set,
    /** Replaces values without marking them changed (a link loaded for editing, the first domain chosen). */
    load: setForm,
    /** The API's messages for a field (`alias`, `country.0.key`), unless it changed since. */
    errorOf: (path: string): string[] | undefined => (edited.has(formFieldOf(path)) ? undefined : apiErrors[path]),
    /** Before sending: every message shows again until its field changes. */
    resetEdited: () => setEdited(new Set()),
    /** Another target type: its first entry row appears; none clears the entries. */
    setTargetType: (type: TargetType) => {
      setForm((f) => ({ ...f, target_type: type, targets: type === TARGET_TYPES.none ? [] : f.targets.length ? f.targets : [{ key: "", value: "" }] }));
      markEdited("targets");
    },
    updateTarget: (index: number, change: Partial<TargetEntry>) => setTargets((targets) => targets.map((t, i) => (i === index ? { ...t, ...change } : t))),
    addTarget: () => setTargets((targets) => [...targets, { key: "", value: "" }]),
    removeTarget: (index: number) => setTargets((targets) => targets.filter((_, i) => i !== index)),
  };
}

export type LinkFormModel = ReturnType<typeof useLinkForm>;
