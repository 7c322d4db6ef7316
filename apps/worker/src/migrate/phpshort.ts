import { SourceError, SourceLoopError, type Source, type SourceLink, type SourceOptions, type SourcePage, type SourceTarget } from "./source.ts";

/** The largest page the seed's API lists (`per_page` 10, 25, 50 or 100). */
const PER_PAGE = 100;
/** Pages asked for ahead of the one the runner wants: the source's pages are numbered, so the next few can be in flight at once. */
const READ_AHEAD = 3;

type Json = Record<string, unknown>;

/**
 * The phpShort source (CONTRACT §23): any service speaking the seed's API (phpShort 5.x, or this service).
 * It pages `GET /api/v1/links?sort_by=id&sort=asc&per_page=100` with the Bearer key — oldest first, so
 * links made during the run land on later pages — and follows the answer's own `links.next` (the cursor
 * is the page number it names). It carries alias, url, title, domain (by name), disabled, expiration
 * (moment, clicks, url), targeting (country, platform, language, rotation), privacy (as private), the
 * creation date and the click total. Per-day clicks are not read: the API gives them one link at a time
 * (`/stats/{id}`), a request per link (docs/adr/0049-live-migration.md). A password is carried when the
 * source sends it in clear (phpShort); when it only says one is set (`password: true`, this service),
 * the link is refused rather than carried unprotected.
 */
export function createPhpShortSource(options: SourceOptions): Source {
  const { http } = options;
  const headers = { authorization: `Bearer ${options.key}` };
  /** Domain names by id, read once when a link names its domain by id only. */
  let domainNames: Promise<Map<number, string>> | undefined;
  const ahead = new Map<number, Promise<unknown>>();

  const fetchPage = (n: number, signal?: AbortSignal) => http({ path: "/api/v1/links", query: { page: n, per_page: PER_PAGE, sort_by: "id", sort: "asc" }, headers }, signal);

  const readDomains = async (signal?: AbortSignal): Promise<Map<number, string>> => {
    const names = new Map<number, string>();
    const seen = new Set<number>();
    for (let page = 1; ; page++) {
      if (seen.has(page) || page > 10_000) throw new SourceError("The source's domain list does not end.");
      seen.add(page);
      const body = (await http({ path: "/api/v1/domains", query: { page, per_page: PER_PAGE }, headers }, signal)) as Json;
      const data = body?.data;
      if (!Array.isArray(data)) throw new SourceError("/api/v1/domains answered without a data list: is this a phpShort-compatible API?");
      for (const d of data as Json[]) if (typeof d?.id === "number" && typeof d.name === "string") names.set(d.id, d.name);
      if (!data.length || !nextPageOf(body)) return names;
    }
  };

  return {
    name: "phpshort",
    async page(cursor, signal) {
      const n = cursor === null ? 1 : Number(cursor);
      if (!Number.isInteger(n) || n < 1) throw new SourceError(`The page cursor ${cursor} is not a page number.`);
      const pending = ahead.get(n) ?? fetchPage(n, signal);
      ahead.delete(n);
      for (const [k] of ahead) if (k < n) ahead.delete(k);
      const body = (await pending) as Json;
      const data = body?.data;
      if (!Array.isArray(data)) throw new SourceError("/api/v1/links answered without a data list: is this a phpShort-compatible API?");
      const next = nextPageOf(body);
      // Numbered pages only go forward: a next page at or before this one is a loop (even back to the first, whose cursor is null).
      if (next !== null && next <= n) throw new SourceLoopError(`The source's page ${n} says the next page is ${next}: its pages loop.`);
      if (next !== null) {
        // The source names its next pages itself; the ones after it are read ahead, each retried on its own.
        for (let k = next; k < next + READ_AHEAD; k++) {
          if (!ahead.has(k)) {
            const p = fetchPage(k, signal);
            p.catch(() => {}); // a failure surfaces when (if) that page is asked for
            ahead.set(k, p);
          }
        }
      }
      const links: SourceLink[] = [];
      for (const raw of data as unknown[]) links.push(await toSourceLink(raw, () => (domainNames ??= readDomains(signal))));
      const meta = body.meta as Json | undefined;
      const total = typeof meta?.total === "number" ? meta.total : undefined;
      const page: SourcePage = { links, next: next === null ? null : String(next), ...(total !== undefined ? { total } : {}) };
      return page;
    },
  };
}

/** The page number of `links.next` (an absolute URL with `page=`), or null at the end. */
function nextPageOf(body: Json): number | null {
  const links = body.links as Json | undefined;
  const next = links?.next;
  if (next === null || next === undefined) return null;
  if (typeof next !== "string") throw new SourceError("The source's links.next is neither a URL nor null.");
  let page: string | null = null;
  try {
    page = new URL(next, "http://source.invalid/").searchParams.get("page");
  } catch {
    page = null;
  }
  const n = Number(page);
  if (!page || !Number.isInteger(n) || n < 1) throw new SourceError(`The source's links.next (${next.slice(0, 200)}) names no page.`);
  return n;
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : typeof v === "number" ? String(v) : null);
const int = (v: unknown): number | null => {
  const n = typeof v === "number" ? v : typeof v === "string" && /^\d+$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
};

/** A date the source sent: ISO 8601, or phpShort's `YYYY-MM-DD HH:MM:SS` (UTC). */
function dateOf(v: unknown): Date | null {
  if (typeof v !== "string" || !v) return null;
  const text = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})?$/.test(v) ? `${v.replace(" ", "T")}Z` : v;
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? null : at;
}

function targetsOf(v: unknown): SourceTarget[] | undefined {
  if (!Array.isArray(v) || !v.length) return undefined;
  return v.map((e: Json) => ({ key: str(e?.key) ?? "", value: str(e?.value) ?? "" }));
}

/**
 * One link of the source in our terms. Values are passed on as the source gave them (as text where
 * they are text): the import's checks (CONTRACT §4, §15) decide, and a bad one refuses the link with
 * the reason. Only the shape is checked here.
 */
async function toSourceLink(raw: unknown, domains: () => Promise<Map<number, string>>): Promise<SourceLink> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return { alias: "", url: "", refusal: "The source sent a link that is not an object." };
  const l = raw as Json;
  const alias = str(l.alias) ?? "";
  const link: SourceLink = { alias, url: str(l.url) ?? "" };
  const notes: string[] = [];

  const domain = l.domain;
  if (typeof domain === "object" && domain !== null && typeof (domain as Json).name === "string") link.domain = (domain as Json).name as string;
  else if (typeof domain === "number" || (typeof domain === "string" && /^\d+$/.test(domain))) {
    const name = (await domains()).get(Number(domain));
    if (name === undefined) link.refusal = `The source names domain ${domain}, which its domain list does not have.`;
    else link.domain = name;
  } else if (typeof domain === "string") link.domain = domain;

  const title = str(l.title);
  if (title) link.title = title;
  if (l.disabled === 1 || l.disabled === "1" || l.disabled === true) link.disabled = true;
  if (l.privacy === 1 || l.privacy === 2 || l.privacy === "1" || l.privacy === "2") {
    link.isStatsPrivate = true;
    if (String(l.privacy) === "2") notes.push("statistics password not readable: statistics made private");
  }
  if (typeof l.password === "string" && l.password) link.password = l.password;
  else if (l.password === true || l.password === 1) link.refusal ??= "The link has a password, and the source does not reveal it (carrying the link would leave it unprotected).";

  const endsAt = dateOf(l.ends_at) ?? (typeof l.expiration_date === "string" && l.expiration_date ? dateOf(`${l.expiration_date} ${str(l.expiration_time) || "00:00"}`) : null);
  if (endsAt) link.endsAt = endsAt;
  const expirationClicks = int(l.expiration_clicks);
  if (expirationClicks) link.expirationClicks = expirationClicks;
  const expirationUrl = str(l.expiration_url);
  if (expirationUrl) link.expirationUrl = expirationUrl;

  const country = targetsOf(l.country_target);
  const platform = targetsOf(l.platform_target);
  const language = targetsOf(l.language_target);
  if (country) link.countryTarget = country;
  if (platform) link.platformTarget = platform;
  if (language) link.languageTarget = language;
  if (Array.isArray(l.rotation_target) && l.rotation_target.length) link.rotationTarget = l.rotation_target.map((e: Json) => ({ value: str(e?.value) ?? "" }));
  const targetType = int(l.target_type);
  if (targetType !== null && targetType > 0) link.targetType = targetType;

  if (Array.isArray(l.pixels) && l.pixels.length) notes.push("pixels not carried (they belong to the source's account)");
  if (l.space !== null && l.space !== undefined) notes.push("space not carried");

  const createdAt = dateOf(l.created_at);
  if (createdAt) link.createdAt = createdAt;
  // Passed on as given (a negative or broken count refuses the link, with the reason, in the import's check).
  if (typeof l.clicks === "number") link.clicks = l.clicks;
  else if (typeof l.clicks === "string" && l.clicks !== "") link.clicks = Number(l.clicks);
  if (notes.length) link.notes = notes;
  return link;
}
