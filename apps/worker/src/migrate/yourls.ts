import { RecordReader, expectObject, isObject, offsetCursor, readOffsetCursor } from "./read-json.ts";
import { SourceError, type Source, type SourceLink, type SourceOptions } from "./source.ts";

/**
 * YOURLS (read from YOURLS/YOURLS: yourls-api.php, includes/functions-api.php `yourls_api_action_stats`,
 * includes/functions.php `yourls_get_stats`, includes/auth.php; https://yourls.org/docs/guide/advanced/api):
 * `GET yourls-api.php?action=stats&filter=last&limit=&start=&format=json` authenticated by `signature`
 * (passwordless token) or `username` + `password`, answering
 * `{ links: { link_1: { shorturl, url, title, timestamp, ip, clicks }, … }, stats: { total_links, total_clicks }, statusCode, message }`.
 * `--url` is the YOURLS site (where yourls-api.php lives) or the yourls-api.php address itself; `--key` is
 * the signature token, or `username:password`.
 */
export const YOURLS_PAGE_SIZE = 100;

export function createYourlsSource({ url, key, http }: SourceOptions): Source {
  // The runner's HTTP client resolves paths against `--url` (as a folder): a `--url` naming the script itself
  // is reached by climbing back out of that "folder".
  const base = new URL(url);
  const script = base.pathname.endsWith(".php") ? base.pathname.slice(base.pathname.lastIndexOf("/") + 1) : null;
  const path = script ? `../${script}` : "yourls-api.php";
  const site = stripTrailingSlash(script ? url.slice(0, url.lastIndexOf("/")) : url);
  const colon = key.indexOf(":");
  const auth = colon > 0 ? { username: key.slice(0, colon), password: key.slice(colon + 1) } : { signature: key };

  return {
    name: "yourls",
    async page(cursor, signal) {
      const { offset, lastAlias } = readOffsetCursor(cursor, "YOURLS");
      const answer = expectObject(
        await http({ path, query: { action: "stats", filter: "last", limit: YOURLS_PAGE_SIZE, start: offset, format: "json", ...auth } }, signal),
        "YOURLS",
        "the stats answer",
      );
      // No links at all: YOURLS leaves `links` out (PHP's empty array would be `[]`).
      const entries = isObject(answer.links) ? Object.entries(answer.links) : [];
      if (answer.links !== undefined && !isObject(answer.links) && !(Array.isArray(answer.links) && answer.links.length === 0)) {
        throw new SourceError("YOURLS answered a `links` field that is not the link_1, link_2… object its API gives.");
      }
      entries.sort(([a], [b]) => linkIndex(a) - linkIndex(b));
      const links = entries.map(([, value]) => readLink(value, site));

      const last = links.at(-1)?.alias;
      if (last !== undefined && lastAlias !== null && offset > 0 && last === lastAlias) {
        throw new SourceError(`YOURLS answered the same links at offset ${offset} as on the page before: its paging repeats, stopping here.`);
      }
      const next = links.length >= YOURLS_PAGE_SIZE && last !== undefined ? offsetCursor(offset + links.length, last) : null;
      const stats = isObject(answer.stats) ? new RecordReader(answer.stats).count("total_links") : undefined;
      return typeof stats === "number" ? { links, next, total: stats } : { links, next };
    },
  };
}

function linkIndex(key: string): number {
  const match = /^link_(\d+)$/.exec(key);
  return match ? Number(match[1]) : Number.MAX_SAFE_INTEGER;
}

function stripTrailingSlash(text: string): string {
  return text.endsWith("/") ? text.slice(0, -1) : text;
}

function readLink(value: unknown, site: string): SourceLink {
  if (!isObject(value)) return { alias: "", url: "", notes: ["the source gave an entry that is not a link object"] };
  const r = new RecordReader(value);
  const shorturl = r.required("shorturl", "short URL");
  const link: SourceLink = { alias: keywordOf(shorturl, site), url: r.required("url", "long URL") };
  const title = r.text("title");
  if (title !== undefined) link.title = title;
  // YOURLS writes `timestamp` as MySQL DATETIME without a zone: taken as UTC.
  const created = r.date("timestamp");
  if (created) link.createdAt = created;
  const clicks = r.count("clicks");
  if (typeof clicks === "number") link.clicks = clicks;
  if (r.notes.length > 0) link.notes = r.notes;
  return link;
}

/** The keyword of a YOURLS short URL: what follows the site's address (or, on another host, the last path segment). */
function keywordOf(shorturl: string, site: string): string {
  const rest = shorturl.startsWith(`${site}/`) ? shorturl.slice(site.length + 1) : shorturl.slice(shorturl.lastIndexOf("/") + 1);
  try {
    return decodeURIComponent(rest);
  } catch {
    return rest;
  }
}
