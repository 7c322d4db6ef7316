import { useEffect, useId, useState, type ReactNode } from "react";

/** A labelled form field with its API error messages below it, tied by aria-describedby. */
export function Field({
  label,
  errors,
  hint,
  children,
}: {
  label: string;
  errors?: string[] | undefined;
  hint?: string;
  children: (props: { id: string; "aria-invalid": boolean; "aria-describedby"?: string }) => ReactNode;
}) {
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const described = [errors?.length ? errorId : "", hint ? hintId : ""].filter(Boolean).join(" ");
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, "aria-invalid": Boolean(errors?.length), ...(described ? { "aria-describedby": described } : {}) })}
      {hint ? (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      {errors?.length ? (
        <p className="error" id={errorId} role="alert">
          {errors.join(" ")}
        </p>
      ) : null}
    </div>
  );
}

export function ErrorBanner({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p className="banner error" role="alert">
      {message}
    </p>
  );
}

export function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return debounced;
}

export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** A labelled group of checkboxes (scopes, events) with the API's messages for the whole list below it. */
export function CheckGroup<T extends string>({
  label,
  options,
  value,
  onChange,
  errors,
  describe,
}: {
  label: string;
  options: readonly T[];
  value: readonly T[];
  onChange: (next: T[]) => void;
  errors?: string[] | undefined;
  describe?: (option: T) => string;
}) {
  const id = useId();
  return (
    <div className="field">
      <span className="label-like" id={`${id}-label`}>
        {label}
      </span>
      <div role="group" aria-labelledby={`${id}-label`} aria-describedby={errors?.length ? `${id}-error` : undefined} className="checks">
        {options.map((option) => (
          <label key={option} className="check">
            <input
              type="checkbox"
              value={option}
              checked={value.includes(option)}
              onChange={(e) => onChange(e.target.checked ? options.filter((o) => o === option || value.includes(o)) : value.filter((o) => o !== option))}
            />
            <code>{option}</code>
            {describe ? <span className="muted small">{describe(option)}</span> : null}
          </label>
        ))}
      </div>
      {errors?.length ? (
        <p className="error" id={`${id}-error`} role="alert">
          {errors.join(" ")}
        </p>
      ) : null}
    </div>
  );
}

/** A secret shown once (an API key, a signing secret) with a copy button. */
export function SecretOnce({ intro, secret, testId }: { intro: ReactNode; secret: string; testId: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="card issued" role="status">
      <p>{intro}</p>
      <code data-testid={testId} className="secret">
        {secret}
      </code>{" "}
      <button type="button" className="ghost" onClick={() => void copyText(secret).then(setCopied)}>
        {copied ? "Copied" : "Copy"}
      </button>
    </div>
  );
}

/** `2026-11-24T06:13:00.000Z` → `2026-11-24 06:13 UTC`; null → the fallback. */
export function formatMoment(iso: string | null | undefined, fallback = "—"): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : fallback;
}

/** What a list's `meta` says about its pages (CONTRACT §5). */
export type PageMeta = { current_page: number; last_page: number };

/**
 * Previous/next paging of a list. `page` is the page asked for (the buttons follow it at once, while the
 * shown page may still be the previous one's data); nothing shows for a single page unless `isAlwaysShown`.
 */
export function Pager({
  meta,
  page,
  onPage,
  label = "Pages",
  previousText = "Previous",
  nextText = "Next",
  summary,
  isAlwaysShown = false,
}: {
  meta: PageMeta | undefined;
  page: number;
  onPage: (page: number) => void;
  label?: string;
  previousText?: string;
  nextText?: string;
  /** Said after "Page 1 of 3", e.g. " · 60 links". */
  summary?: string;
  isAlwaysShown?: boolean;
}) {
  if (!meta || (meta.last_page <= 1 && !isAlwaysShown)) return null;
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {previousText}
      </button>
      <span>
        Page {meta.current_page} of {Math.max(1, meta.last_page)}
        {summary}
      </span>
      <button type="button" disabled={page >= meta.last_page} onClick={() => onPage(page + 1)}>
        {nextText}
      </button>
    </nav>
  );
}
