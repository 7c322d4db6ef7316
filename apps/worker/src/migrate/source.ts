/**
 * A live source of `importer migrate` (CONTRACT §23): another service's API, read a page at a time. Each
 * adapter (shlink.ts, yourls.ts, kutt.ts, phpshort.ts, dub.ts, bitly.ts) turns the source's own objects
 * into `SourceLink`s; the runner writes them through an import job (§12), so a migration is resumable,
 * idempotent and visible like any import.
 */

/** A targeting entry as §7 keeps it: a key (country code, platform, language) and its destination. */
export type SourceTarget = { key: string; value: string };

/** One link as a source gives it, in our terms. Absent: the source does not give it (or it is unset). */
export type SourceLink = {
  /** The short code: kept as the alias, never changed (a link whose alias cannot be kept is refused, with the reason, not renamed). */
  alias: string;
  url: string;
  /** The short domain's name, when the source has several (null: its default domain). */
  domain?: string | null;
  title?: string | null;
  tags?: readonly string[];
  createdAt?: Date;
  /** When the link stops (§4 `expiration_date`/`expiration_time`). */
  endsAt?: Date | null;
  expirationClicks?: number | null;
  expirationUrl?: string | null;
  /** The link's password in clear, where the source exposes it. */
  password?: string | null;
  disabled?: boolean;
  /** Redirect rules the source has, mapped to §7 targeting; absent when it has none or none maps. */
  countryTarget?: readonly SourceTarget[];
  platformTarget?: readonly SourceTarget[];
  languageTarget?: readonly SourceTarget[];
  /** The click total the source reports (carried into the link's count, marked as imported). */
  clicks?: number;
  /** Clicks per UTC day (`YYYY-MM-DD` → count), where the source gives them: into the rollups, marked as imported. */
  clicksByDay?: Readonly<Record<string, number>>;
  /** Which targeting group is active (§4 `target_type`), when the source says; absent: the first group given. */
  targetType?: number;
  /** Rotation entries (§7 target type 4), where the source has them. */
  rotationTarget?: readonly { value: string }[];
  /** The link's statistics are not public at the source (carried as privacy 1: the owner only). */
  isStatsPrivate?: boolean;
  /** What of this link could not be carried, in words (a redirect rule with no §7 equivalent…): for the report. */
  notes?: readonly string[];
  /** Why this link cannot be carried at all without changing what it does (a password the source does not reveal…): refused with this reason. */
  refusal?: string;
};

/** One page of a source: its links, where the next page starts (null: this was the last), and the total the source claims, if it says. */
export type SourcePage = { links: SourceLink[]; next: string | null; total?: number };

/**
 * A source. `page(cursor)` reads the page that starts at `cursor` (null: the first). A cursor is an
 * opaque string the runner stores after each committed page, so an interrupted run resumes where it
 * stopped; the runner refuses a cursor it has already seen (a source whose pages loop).
 */
export type Source = {
  /** `shlink`, `yourls`, `kutt`, `phpshort`, `dub`, `bitly`. */
  name: string;
  page(cursor: string | null, signal?: AbortSignal): Promise<SourcePage>;
};

/** How an adapter is made: the source's base URL and key, and the HTTP client that retries and backs off (http.ts). */
export type SourceOptions = { url: string; key: string; http: SourceHttp };

/**
 * A GET (or POST, for the sources whose API asks for it) of the source's API that answers parsed JSON.
 * It retries 429 and 5xx with backoff (honouring `Retry-After`) and throws `SourceError` on 401/403, on
 * any other 4xx, and when the retries run out; an adapter never sees a failed answer.
 */
export type SourceHttp = (
  request: { path: string; query?: Record<string, string | number | undefined>; headers?: Record<string, string>; method?: "GET" | "POST"; body?: unknown },
  signal?: AbortSignal,
) => Promise<unknown>;

/** A source that cannot be read: wrong key, gone, or answering what its reference does not say. The message is for the operator. */
export class SourceError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "SourceError";
  }
}

/** A source whose pages cannot be followed to an end (a next page already read): the run stops, and its job fails with this reason. */
export class SourceLoopError extends SourceError {
  constructor(message: string) {
    super(message);
    this.name = "SourceLoopError";
  }
}
