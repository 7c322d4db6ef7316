import { GROUP_OF_TYPE, LINK_FIELDS, TARGET_TYPES, type LinkField, type TargetGroup, type TargetType } from "@shortener/vocabulary";
import type { Inputs, Link } from "../../trpc.ts";

/*
 * The link editor's form model, with no React in it (apps/web/test/link-form.test.ts): what the form
 * holds, how a link fills it, what it sends, and which field an API message belongs under.
 */

/** One targeting entry: a country, platform or language code (none for rotation), its destination, and a rotation entry's weight as typed ("" none). */
export type TargetEntry = { key: string; value: string; weight?: string };

/** What the editor's fields hold: text as typed (numbers are parsed when sent), so a field can be empty. */
export type LinkForm = {
  url: string;
  domain_id: string;
  alias: string;
  title: string;
  password: string;
  removePassword: boolean;
  space_id: string;
  pixel_ids: number[];
  /** Tags as typed, comma-separated (the API takes the list and checks each). */
  tags: string;
  /** The Open Graph preview link-preview bots are shown (CONTRACT §25); "" none. */
  og_title: string;
  og_description: string;
  og_image: string;
  disabled: boolean;
  privacy: "0" | "1" | "2";
  privacy_password: string;
  expiration_url: string;
  expiration_date: string;
  expiration_time: string;
  expiration_clicks: string;
  target_type: TargetType;
  targets: TargetEntry[];
};

export const EMPTY_FORM: LinkForm = {
  url: "",
  domain_id: "",
  alias: "",
  title: "",
  password: "",
  removePassword: false,
  space_id: "",
  pixel_ids: [],
  tags: "",
  og_title: "",
  og_description: "",
  og_image: "",
  disabled: false,
  privacy: "0",
  privacy_password: "",
  expiration_url: "",
  expiration_date: "",
  expiration_time: "",
  expiration_clicks: "0",
  target_type: TARGET_TYPES.none,
  targets: [],
};

/** The "Target by" choices, in the contract's order. */
export const TARGET_TYPE_OPTIONS: ReadonlyArray<{ value: TargetType; label: string }> = [
  { value: TARGET_TYPES.none, label: "None" },
  { value: TARGET_TYPES.country, label: "Country" },
  { value: TARGET_TYPES.platform, label: "Platform" },
  { value: TARGET_TYPES.language, label: "Language" },
  { value: TARGET_TYPES.rotation, label: "Rotation" },
];

/** The entry list a target type edits (`country`, …), or null for none. */
export function groupOf(type: TargetType): TargetGroup | null {
  return GROUP_OF_TYPE[type] ?? null;
}

/** A link as the API answers it → the editor's fields. A stored password is never shown, only its presence. */
export function formOf(link: Link): LinkForm {
  const keyed = link.country_target ?? link.platform_target ?? link.language_target;
  const entries: TargetEntry[] = keyed
    ? keyed.map((t) => ({ key: t.key ?? "", value: t.value }))
    : (link.rotation_target?.map((r) => ({ key: "", value: r.value, weight: r.weight === null ? "" : String(r.weight) })) ?? []);
  return {
    ...EMPTY_FORM,
    url: link.url,
    domain_id: String(link.domain.id),
    alias: link.alias,
    title: link.title ?? "",
    space_id: link.space ? String(link.space.id) : "",
    pixel_ids: link.pixels.map((p) => p.id),
    tags: link.tags.join(", "),
    og_title: link.og_title ?? "",
    og_description: link.og_description ?? "",
    og_image: link.og_image ?? "",
    disabled: link.disabled === 1,
    privacy: String(link.privacy) as LinkForm["privacy"],
    expiration_url: link.expiration_url ?? "",
    expiration_date: link.expiration_date ?? "",
    expiration_time: link.expiration_time ?? "",
    expiration_clicks: String(link.expiration_clicks),
    target_type: link.target_type as TargetType,
    targets: entries,
  };
}

const orNull = (value: string) => (value.trim() === "" ? null : value.trim());

/** The tags field (`a, b`) as the API's list: blanks between commas dropped; on update an empty field clears them. */
export function tagsOf(text: string, isUpdate: boolean): string[] | undefined {
  const tags = text
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  return tags.length || isUpdate ? tags : undefined;
}

/**
 * The fields both create and update send. On update an emptied field is `null` (clear it) and the
 * password goes only when typed or removed; on create an empty field is left out (the API's default).
 */
function fieldsOf(form: LinkForm, isUpdate: boolean) {
  const group = groupOf(form.target_type);
  // A rotation entry's weight goes as typed (a number when it is one: the API names a bad one), none when empty.
  const weightOf = (w: string | undefined) => (w?.trim() ? (/^\d+$/.test(w.trim()) ? Number(w.trim()) : w.trim()) : undefined);
  const targets = form.targets.map((t) =>
    group === "rotation" ? { value: t.value.trim(), ...(weightOf(t.weight) !== undefined ? { weight: weightOf(t.weight) } : {}) } : { key: t.key.trim(), value: t.value.trim() },
  );
  const clear = <T>(value: T | null) => (value === null ? (isUpdate ? null : undefined) : value);
  return {
    url: form.url.trim(),
    alias: form.alias.trim() || undefined,
    title: clear(orNull(form.title)),
    ...(form.password ? { password: form.password } : form.removePassword && isUpdate ? { password: null } : {}),
    space_id: clear(form.space_id ? Number(form.space_id) : null),
    pixel_ids: isUpdate ? form.pixel_ids : form.pixel_ids.length ? form.pixel_ids : undefined,
    tags: tagsOf(form.tags, isUpdate),
    og_title: clear(orNull(form.og_title)),
    og_description: clear(orNull(form.og_description)),
    og_image: clear(orNull(form.og_image)),
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

/** `links.create`'s input. The API checks every value again and answers 422 with each field's message. */
export function createInputOf(form: LinkForm): Inputs["links"]["create"] {
  return { ...fieldsOf(form, false), domain_id: Number(form.domain_id) } as Inputs["links"]["create"];
}

/** `links.update`'s input for link `id`. */
export function updateInputOf(id: number, form: LinkForm): Inputs["links"]["update"] {
  return { id, ...fieldsOf(form, true) } as Inputs["links"]["update"];
}

/** The form fields an API message can be about; a message for any other field shows above the form. */
export const KNOWN_FIELDS: readonly LinkField[] = LINK_FIELDS.filter((field) => field !== "disabled"); // a checkbox: its message shows above

/** The fields whose messages are about the targeting entries: a change to the entries hides them all. */
const TARGET_FIELDS: readonly string[] = ["target_type", "country", "platform", "language", "rotation"];

/**
 * Which form field an API message's path (`alias`, `country.0.key`) belongs to: the one whose change hides
 * it. Every targeting message belongs to `targets`.
 */
export function formFieldOf(path: string): string {
  const base = path.split(".")[0] ?? path;
  return TARGET_FIELDS.includes(base) ? "targets" : base;
}

/** The API's messages for no field of the form (shown above it). */
export function otherErrorsOf(errors: Record<string, string[]>): Array<[string, string[]]> {
  return Object.entries(errors).filter(([field]) => !KNOWN_FIELDS.some((f) => field === f || field.startsWith(`${f}.`)));
}
