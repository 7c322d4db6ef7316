import { RecordReader, expectArray, isObject } from "./read-json.ts";
import { SourceError, type Source, type SourceLink, type SourceOptions, type SourceTarget } from "./source.ts";

/**
 * Dub (read from dubinc/dub: apps/web/app/api/links/route.ts, lib/api/links/get-links-for-workspace.ts,
 * lib/zod/schemas/links.ts (`LinkSchema`, `getLinksQuerySchemaBase`: `startingAfter`/`endingBefore`, `pageSize` ≤ 100),
 * lib/zod/schemas/folders.ts, lib/api/errors.ts, lib/auth/rate-limit-request.ts; https://dub.co/docs/api-reference):
 * `GET /links?pageSize=100&showArchived=true[&folderId=][&startingAfter=<link id>]` with `Authorization: Bearer dub_…`,
 * answering a bare list of links. Without `folderId` Dub lists only the links outside folders, so the adapter
 * then walks each folder of `GET /folders` (in id order) the same way. `--url` is https://api.dub.co.
 *
 * The cursor is `{"folder": id | null, "after": link id | null}`: always Dub's own ids, so a Dub that answers
 * the same page again hands back the same cursor, which the runner refuses.
 */
export const DUB_PAGE_SIZE = 100;
const FOLDER_PAGE_SIZE = 50;

type DubCursor = { folder: string | null; after: string | null };

export function createDubSource({ key, http }: SourceOptions): Source {
  const headers = { Authorization: `Bearer ${key}` };

  async function nextFolder(after: string | null, signal?: AbortSignal): Promise<string | null> {
    const ids: string[] = [];
    for (let page = 1; ; page++) {
      const folders = expectArray(await http({ path: "folders", query: { pageSize: FOLDER_PAGE_SIZE, page }, headers }, signal), "Dub", "the folder list");
      for (const folder of folders) if (isObject(folder) && typeof folder.id === "string") ids.push(folder.id);
      if (folders.length < FOLDER_PAGE_SIZE) break;
    }
    ids.sort();
    return ids.find((id) => after === null || id > after) ?? null;
  }

  return {
    name: "dub",
    async page(cursor, signal) {
      const { folder, after } = readCursor(cursor);
      const answer = expectArray(
        await http(
          {
            path: "links",
            query: { pageSize: DUB_PAGE_SIZE, showArchived: "true", folderId: folder ?? undefined, startingAfter: after ?? undefined },
            headers,
          },
          signal,
        ),
        "Dub",
        "the link list",
      );
      const links = answer.map(readLink);

      let next: DubCursor | null;
      if (answer.length >= DUB_PAGE_SIZE) {
        const last = answer.at(-1);
        const id = isObject(last) && typeof last.id === "string" ? last.id : null;
        if (!id) throw new SourceError("Dub answered a full page whose last link has no id: its cursor paging cannot go on.");
        next = { folder, after: id };
      } else {
        const following = await nextFolder(folder, signal);
        next = following ? { folder: following, after: null } : null;
      }
      return { links, next: next ? JSON.stringify(next) : null };
    },
  };
}

function readCursor(cursor: string | null): DubCursor {
  if (cursor === null) return { folder: null, after: null };
  try {
    const value: unknown = JSON.parse(cursor);
    if (isObject(value) && (value.folder === null || typeof value.folder === "string") && (value.after === null || typeof value.after === "string")) {
      return { folder: value.folder, after: value.after };
    }
  } catch {
    // Answered below.
  }
  throw new SourceError(`Dub: the stored cursor "${cursor.slice(0, 64)}" is not one this adapter wrote.`);
}

function readLink(value: unknown): SourceLink {
  if (!isObject(value)) return { alias: "", url: "", notes: ["the source gave an entry that is not a link object"] };
  const r = new RecordReader(value);
  const alias = r.required("key", "key");
  const link: SourceLink = { alias, url: r.required("url", "destination URL") };
  if (alias === "_root") r.note("Dub's root-domain link (_root), not a short code: carry it as the domain's index page instead");

  const domain = r.text("domain");
  if (domain !== undefined) link.domain = domain;
  const title = r.text("title");
  if (title !== undefined) link.title = title;
  const tags = r.list("tags");
  if (tags) {
    link.tags = tags.flatMap((tag) => (isObject(tag) && typeof tag.name === "string" ? [tag.name] : []));
    if (link.tags.length < tags.length) r.note(`tags: ${tags.length - link.tags.length} without a name, not carried`);
  }
  const created = r.date("createdAt");
  if (created) link.createdAt = created;
  const expires = r.date("expiresAt");
  if (expires !== undefined) link.endsAt = expires;
  const expiredUrl = r.text("expiredUrl");
  if (expiredUrl !== undefined) link.expirationUrl = expiredUrl;
  const password = r.text("password");
  if (password !== undefined) link.password = password;
  const clicks = r.count("clicks");
  if (typeof clicks === "number") link.clicks = clicks;
  if (r.date("disabledAt")) link.disabled = true;
  if (r.flag("archived") === true) r.note("archived in Dub (it still redirects there): carried as an ordinary link");

  const platform: SourceTarget[] = [];
  const ios = r.text("ios");
  if (ios) platform.push({ key: "iOS", value: ios });
  const android = r.text("android");
  if (android) platform.push({ key: "Android", value: android });
  if (platform.length > 0) link.platformTarget = platform;
  const geo = r.object("geo");
  if (geo) {
    const country: SourceTarget[] = [];
    for (const [code, url] of Object.entries(geo)) {
      if (typeof url === "string") country.push({ key: code.toUpperCase(), value: url });
      else r.note(`geo.${code.slice(0, 8)}: not a URL, not carried`);
    }
    if (country.length > 0) link.countryTarget = country;
  }

  if (r.flag("proxy") === true) r.note("custom social media card (proxy) not carried");
  if (r.flag("rewrite") === true) r.note("link cloaking (rewrite) not carried");
  const variants = r.list("testVariants");
  if (variants && variants.length > 0) r.note("A/B test variants not carried");
  if (r.text("comments")) r.note("comments not carried");
  if (r.notes.length > 0) link.notes = r.notes;
  return link;
}
