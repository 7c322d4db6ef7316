import { RecordReader, expectArray, expectObject, isObject, type JsonObject } from "./read-json.ts";
import { SourceError, type Source, type SourceLink, type SourceOptions, type SourceTarget } from "./source.ts";

/**
 * Shlink (REST API v3, Shlink ≥ 3.0; read from shlinkio/shlink docs/swagger at v5.1.5, https://api-spec.shlink.io):
 * `GET /rest/v3/short-urls?page=&itemsPerPage=&orderBy=dateCreated-ASC` with `X-Api-Key`, answering
 * `{ shortUrls: { data: ShortUrl[], pagination: { currentPage, pagesCount, itemsPerPage, itemsInCurrentPage, totalItems } } }`;
 * and, for a short URL whose `hasRedirectRules` is true, `GET /rest/v3/short-urls/{shortCode}/redirect-rules?domain=`.
 * `--url` is the instance's base URL (the one its API is served under).
 */
export const SHLINK_PAGE_SIZE = 100;

/** Shlink's device types (its `DeviceType` enum) as §7 platform keys; "desktop" is every desktop platform §7 knows. */
const DEVICE_PLATFORMS: Record<string, readonly string[]> = {
  android: ["Android"],
  ios: ["iOS"],
  desktop: ["Windows", "OS X", "Linux", "Ubuntu", "Chrome OS"],
};

export function createShlinkSource({ key, http }: SourceOptions): Source {
  const headers = { "X-Api-Key": key };
  return {
    name: "shlink",
    async page(cursor, signal) {
      const page = readPageCursor(cursor);
      const answer = expectObject(
        await http({ path: "rest/v3/short-urls", query: { page, itemsPerPage: SHLINK_PAGE_SIZE, orderBy: "dateCreated-ASC" }, headers }, signal),
        "Shlink",
        "the short URL list",
      );
      const shortUrls = expectObject(answer.shortUrls, "Shlink", "shortUrls");
      const data = expectArray(shortUrls.data, "Shlink", "shortUrls.data");
      const pagination = isObject(shortUrls.pagination) ? shortUrls.pagination : {};

      const links: SourceLink[] = [];
      for (const item of data) links.push(await readShortUrl(item, (path, query) => http({ path, query, headers }, signal)));

      // The next page is the one after the page Shlink says it answered (a server stuck on one page hands back
      // the same cursor, which the runner refuses); a short page is the last, whatever `pagesCount` claims.
      const current = positiveInteger(pagination.currentPage) ?? page;
      const perPage = positiveInteger(pagination.itemsPerPage) ?? SHLINK_PAGE_SIZE;
      const next = data.length > 0 && data.length >= perPage ? String(current + 1) : null;
      const total = nonNegativeInteger(pagination.totalItems);
      return total === undefined ? { links, next } : { links, next, total };
    },
  };
}

function readPageCursor(cursor: string | null): number {
  if (cursor === null) return 1;
  const page = Number(cursor);
  if (!Number.isSafeInteger(page) || page < 1) throw new SourceError(`Shlink: the stored cursor "${cursor.slice(0, 64)}" is not a page number.`);
  return page;
}

type Get = (path: string, query: Record<string, string | undefined>) => Promise<unknown>;

async function readShortUrl(item: unknown, get: Get): Promise<SourceLink> {
  if (!isObject(item)) return { alias: "", url: "", notes: ["the source gave an entry that is not a short URL object"] };
  const r = new RecordReader(item);
  const alias = r.required("shortCode", "short code");
  const link: SourceLink = { alias, url: r.required("longUrl", "long URL") };

  const domain = r.text("domain");
  if (domain !== undefined) link.domain = domain;
  const title = r.text("title");
  if (title !== undefined) link.title = title;
  const tags = r.texts("tags");
  if (tags) link.tags = tags;
  const created = r.date("dateCreated");
  if (created) link.createdAt = created;

  const meta = r.object("meta");
  if (meta) {
    const m = new RecordReader(meta);
    const until = m.date("validUntil");
    if (until !== undefined) link.endsAt = until;
    const maxVisits = m.count("maxVisits");
    if (maxVisits !== undefined) link.expirationClicks = maxVisits;
    const since = m.date("validSince");
    if (since) r.note(`validSince ${since.toISOString()}: a start date has no equivalent here, not carried`);
    for (const note of m.notes) r.note(`meta.${note}`);
  }

  // Bots are redirected but not counted here (§7.11): Shlink's `nonBots` is the matching figure; `total` (or
  // the older `visitsCount`) when it has no split.
  const summary = r.object("visitsSummary");
  const clicks = summary ? (new RecordReader(summary).count("nonBots") ?? new RecordReader(summary).count("total")) : r.count("visitsCount");
  if (typeof clicks === "number") link.clicks = clicks;

  if (r.flag("forwardQuery") === false) r.note("forwardQuery off: here the visitor's query is always forwarded (§7.9)");
  if (r.flag("crawlable") === true) r.note("crawlable: robots.txt entries are not carried");

  const targets = new Targets(r);
  // Shlink 3.5–3.x: device long URLs on the short URL itself.
  const devices = r.object("deviceLongUrls");
  if (devices) {
    for (const [device, url] of Object.entries(devices)) {
      if (typeof url === "string") targets.device(device, url, `deviceLongUrls.${device}`);
    }
  }
  if (r.flag("hasRedirectRules") === true) await readRedirectRules(alias, domain ?? null, get, targets, r);
  targets.apply(link);

  if (r.notes.length > 0) link.notes = r.notes;
  return link;
}

async function readRedirectRules(alias: string, domain: string | null, get: Get, targets: Targets, r: RecordReader): Promise<void> {
  // A short code that is a dot segment would make the request path climb out of the short URL's own.
  if (alias === "" || alias === "." || alias === "..") return r.note("redirect rules: not read (no usable short code)");
  let answer: unknown;
  try {
    answer = await get(`rest/v3/short-urls/${encodeURIComponent(alias)}/redirect-rules`, { domain: domain ?? undefined });
  } catch (error) {
    if (error instanceof SourceError && error.status === 404) return r.note("redirect rules: the short URL was gone when its rules were read");
    throw error;
  }
  if (!isObject(answer) || !Array.isArray(answer.redirectRules)) return r.note("redirect rules: the answer has no redirectRules list, not carried");
  const rules = answer.redirectRules.filter(isObject).sort((a, b) => priority(a) - priority(b));
  for (const rule of rules) targets.rule(rule);
}

function priority(rule: JsonObject): number {
  return typeof rule.priority === "number" ? rule.priority : Number.MAX_SAFE_INTEGER;
}

/** Shlink's rules, in priority order, folded into §7's three groups; the first rule for a key wins, as it does in Shlink. */
class Targets {
  private readonly groups = { country: new Map<string, string>(), platform: new Map<string, string>(), language: new Map<string, string>() };

  constructor(private readonly r: RecordReader) {}

  private add(group: keyof Targets["groups"], key: string, url: string, label: string): void {
    const entries = this.groups[group];
    if (entries.has(key)) this.r.note(`${label}: shadowed by an earlier rule for ${key}, not carried`);
    else entries.set(key, url);
  }

  device(device: string, url: string, label: string): void {
    const platforms = DEVICE_PLATFORMS[device.toLowerCase()];
    if (!platforms) return this.r.note(`${label}: device "${device.slice(0, 32)}" has no §7 platform, not carried`);
    for (const platform of platforms) this.add("platform", platform, url, label);
  }

  rule(rule: JsonObject): void {
    const label = `redirect rule ${typeof rule.priority === "number" ? rule.priority : "?"}`;
    const url = rule.longUrl;
    const conditions = Array.isArray(rule.conditions) ? rule.conditions.filter(isObject) : [];
    if (typeof url !== "string") return this.r.note(`${label}: no long URL, not carried`);
    if (conditions.length !== 1) return this.r.note(`${label}: ${conditions.length} conditions (§7 targets on one), not carried`);
    const [condition] = conditions as [JsonObject];
    const value = typeof condition.matchValue === "string" ? condition.matchValue : "";
    switch (condition.type) {
      case "device":
        return this.device(value, url, label);
      case "language": {
        // §7 keys are ISO 639-1 codes: "en-US" becomes "en" (a region narrower than §7 can say is noted).
        const [primary = "", region] = value.toLowerCase().split(/[-_]/);
        if (!/^[a-z]{2}$/.test(primary)) return this.r.note(`${label}: language "${value.slice(0, 32)}" is not an ISO 639-1 code, not carried`);
        if (region) this.r.note(`${label}: language ${value.slice(0, 32)} carried as ${primary} (§7 has no regions)`);
        return this.add("language", primary, url, label);
      }
      case "geolocation-country-code": {
        const country = value.toUpperCase();
        if (!/^[A-Z]{2}$/.test(country)) return this.r.note(`${label}: country "${value.slice(0, 32)}" is not an ISO 3166-1 code, not carried`);
        return this.add("country", country, url, label);
      }
      default:
        return this.r.note(`${label}: a ${String(condition.type).slice(0, 40)} condition has no §7 equivalent, not carried`);
    }
  }

  apply(link: SourceLink): void {
    const list = (entries: Map<string, string>): SourceTarget[] => [...entries].map(([key, value]) => ({ key, value }));
    if (this.groups.country.size > 0) link.countryTarget = list(this.groups.country);
    if (this.groups.platform.size > 0) link.platformTarget = list(this.groups.platform);
    if (this.groups.language.size > 0) link.languageTarget = list(this.groups.language);
  }
}

function positiveInteger(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

function nonNegativeInteger(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}
