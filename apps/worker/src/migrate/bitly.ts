import { RecordReader, expectArray, expectObject, isObject, parseDate } from "./read-json.ts";
import { SourceError, type Source, type SourceLink, type SourceOptions } from "./source.ts";

/**
 * Bitly (API v4, from its published reference https://dev.bitly.com/api-reference — Bitly cannot run here, so
 * this rests on the documentation alone): `GET /v4/user` (`default_group_guid`), then
 * `GET /v4/groups/{group_guid}/bitlinks?size=100&archived=both[&search_after=]` with `Authorization: Bearer`,
 * answering `{ links: Bitlink[], pagination: { search_after, next, prev, size, total } }`, and per link
 * `GET /v4/bitlinks/{bitlink}/clicks?unit=day&units=-1` answering `{ link_clicks: [{ date, clicks }], unit, units }`.
 * `--url` is https://api-ssl.bitly.com; `--key` is an access token, or `token:group_guid` for a group other
 * than the account's default.
 *
 * The cursor is `{"group", "after"}` with Bitly's own `search_after` (or `{"group", "page"}` where an older
 * answer pages by number): a Bitly that hands back the same `search_after` gives the same cursor, which the
 * runner refuses.
 */
export const BITLY_PAGE_SIZE = 100;
/** Click requests in flight at once (one per link on the page). */
const CLICK_CONCURRENCY = 4;

type BitlyCursor = { group: string; after?: string; page?: number };

export function createBitlySource({ key, http }: SourceOptions): Source {
  const colon = key.indexOf(":");
  const token = colon > 0 ? key.slice(0, colon) : key;
  const givenGroup = colon > 0 ? key.slice(colon + 1) : null;
  const headers = { Authorization: `Bearer ${token}` };
  const get = (path: string, query: Record<string, string | number | undefined>, signal?: AbortSignal) => http({ path, query, headers }, signal);

  return {
    name: "bitly",
    async page(cursor, signal) {
      const position = cursor === null ? { group: givenGroup ?? (await defaultGroup(get, signal)) } : readCursor(cursor);
      const answer = expectObject(
        await get(`v4/groups/${segment(position.group, "group guid")}/bitlinks`, { size: BITLY_PAGE_SIZE, archived: "both", search_after: position.after, page: position.page }, signal),
        "Bitly",
        "the bitlink list",
      );
      const items = expectArray(answer.links, "Bitly", "links");
      const pagination = isObject(answer.pagination) ? answer.pagination : {};

      const links: SourceLink[] = [];
      for (let i = 0; i < items.length; i += CLICK_CONCURRENCY) {
        const batch = await Promise.all(items.slice(i, i + CLICK_CONCURRENCY).map((item) => readBitlink(item, get, signal)));
        links.push(...batch.flat());
      }

      const next = items.length > 0 ? nextPosition(position.group, pagination) : null;
      const total = typeof pagination.total === "number" && Number.isSafeInteger(pagination.total) && pagination.total >= 0 ? pagination.total : undefined;
      const cursorOut = next ? JSON.stringify(next) : null;
      return total === undefined ? { links, next: cursorOut } : { links, next: cursorOut, total };
    },
  };
}

type Get = (path: string, query: Record<string, string | number | undefined>, signal?: AbortSignal) => Promise<unknown>;

async function defaultGroup(get: Get, signal?: AbortSignal): Promise<string> {
  const user = expectObject(await get("v4/user", {}, signal), "Bitly", "the user");
  if (typeof user.default_group_guid === "string" && user.default_group_guid !== "") return user.default_group_guid;
  throw new SourceError("Bitly's user has no default_group_guid: give the group as --key token:group_guid.");
}

/** Where Bitly says the next page starts: its `search_after`, else the one in its `next` address, else a page number there. */
function nextPosition(group: string, pagination: Record<string, unknown>): BitlyCursor | null {
  if (typeof pagination.search_after === "string" && pagination.search_after !== "") return { group, after: pagination.search_after };
  if (typeof pagination.next !== "string" || pagination.next === "") return null;
  let params: URLSearchParams;
  try {
    params = new URL(pagination.next, "https://api-ssl.bitly.com/").searchParams;
  } catch {
    throw new SourceError("Bitly answered a pagination.next that is not an address.");
  }
  const after = params.get("search_after");
  if (after) return { group, after };
  const page = Number(params.get("page"));
  if (Number.isSafeInteger(page) && page > 0) return { group, page };
  throw new SourceError("Bitly answered a pagination.next with neither search_after nor page: its paging cannot go on.");
}

function readCursor(cursor: string): BitlyCursor {
  try {
    const value: unknown = JSON.parse(cursor);
    if (isObject(value) && typeof value.group === "string") {
      if (typeof value.after === "string") return { group: value.group, after: value.after };
      if (typeof value.page === "number") return { group: value.group, page: value.page };
    }
  } catch {
    // Answered below.
  }
  throw new SourceError(`Bitly: the stored cursor "${cursor.slice(0, 64)}" is not one this adapter wrote.`);
}

/** One path segment; a dot segment (or an empty one) would move the request elsewhere on Bitly's API. */
function segment(text: string, what: string): string {
  if (text === "" || text === "." || text === "..") throw new SourceError(`Bitly: "${text}" cannot be a ${what}.`);
  return encodeURIComponent(text);
}

/** A bitlink and its custom back-halves (each an address people may have printed), the clicks on the first. */
async function readBitlink(item: unknown, get: Get, signal?: AbortSignal): Promise<SourceLink[]> {
  if (!isObject(item)) return [{ alias: "", url: "", notes: ["the source gave an entry that is not a bitlink object"] }];
  const r = new RecordReader(item);
  const id = r.required("id", "bitlink id");
  const [domain, alias] = splitBitlink(id);
  const url = r.required("long_url", "long URL");
  const link: SourceLink = { alias, url, domain };
  const title = r.text("title");
  if (title !== undefined) link.title = title;
  const tags = r.texts("tags");
  if (tags) link.tags = tags;
  const created = r.date("created_at");
  if (created) link.createdAt = created;
  if (r.flag("archived") === true) r.note("archived in Bitly (it still redirects there): carried as an ordinary link");
  const deeplinks = r.list("deeplinks");
  if (deeplinks && deeplinks.length > 0) r.note("mobile app deep links not carried");

  if (alias !== "" && domain !== "" && alias !== "." && alias !== ".." && domain !== "." && domain !== "..")
    await readClicks(`${encodeURIComponent(domain)}/${encodeURIComponent(alias)}`, link, r, get, signal);

  const custom = r.texts("custom_bitlinks") ?? [];
  const extra = custom
    .filter((address) => address !== id && address !== `${domain}/${alias}`)
    .map((address): SourceLink => {
      const [customDomain, customAlias] = splitBitlink(address);
      const copy: SourceLink = { alias: customAlias, url, domain: customDomain, notes: [`custom back-half of ${id.slice(0, 200)} (its clicks are carried on that link)`] };
      if (link.title !== undefined) copy.title = link.title;
      if (link.tags) copy.tags = link.tags;
      if (link.createdAt) copy.createdAt = link.createdAt;
      return copy;
    });
  if (r.notes.length > 0) link.notes = r.notes;
  return [link, ...extra];
}

/** `bit.ly/abc` → [`bit.ly`, `abc`]; Bitly's id may come with its scheme (`https://bit.ly/abc`). */
function splitBitlink(id: string): [string, string] {
  const bare = id.replace(/^https?:\/\//i, "");
  const slash = bare.indexOf("/");
  return slash === -1 ? ["", bare] : [bare.slice(0, slash), bare.slice(slash + 1)];
}

async function readClicks(bitlink: string, link: SourceLink, r: RecordReader, get: Get, signal?: AbortSignal): Promise<void> {
  let answer: unknown;
  try {
    answer = await get(`v4/bitlinks/${bitlink}/clicks`, { unit: "day", units: -1 }, signal);
  } catch (error) {
    // The list worked, so a refusal here is the plan (Bitly keeps click history by plan) or a link gone since.
    if (error instanceof SourceError && (error.status === 402 || error.status === 403 || error.status === 404)) {
      return r.note(`clicks not read (Bitly answered ${error.status})`);
    }
    throw error;
  }
  const entries = isObject(answer) && Array.isArray(answer.link_clicks) ? answer.link_clicks : null;
  if (!entries) return r.note("clicks: the answer has no link_clicks list, not carried");
  const byDay: Record<string, number> = {};
  let total = 0;
  for (const entry of entries) {
    const clicks = isObject(entry) ? entry.clicks : undefined;
    const date = isObject(entry) && typeof entry.date === "string" ? parseDate(entry.date) : null;
    if (typeof clicks !== "number" || !Number.isSafeInteger(clicks) || clicks < 0 || !date) {
      r.note("clicks: an entry without a date or a count, not carried");
      continue;
    }
    if (clicks === 0) continue;
    const day = date.toISOString().slice(0, 10);
    byDay[day] = (byDay[day] ?? 0) + clicks;
    total += clicks;
  }
  link.clicks = total;
  if (total > 0) link.clicksByDay = byDay;
}
