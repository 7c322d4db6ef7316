import { RecordReader, expectArray, expectObject, isObject, offsetCursor, readOffsetCursor } from "./read-json.ts";
import { SourceError, type Source, type SourceLink, type SourceOptions } from "./source.ts";

/**
 * Kutt (API v2, read from thedevs-network/kutt: server/handlers/links.handler.js `get`, helpers.handler.js
 * `parseQuery` (limit capped at 50), utils/utils.js `sanitize.link`, auth.handler.js; https://docs.kutt.it):
 * `GET /api/v2/links?skip=&limit=` with `X-API-KEY`, answering `{ total, limit, skip, data: Link[] }` where a link
 * is `{ id, address, target, description, expire_in, password (a boolean), banned, visit_count, domain, created_at, … }`.
 * `--url` is the instance's address (https://kutt.it or your own).
 */
export const KUTT_PAGE_SIZE = 50;

export function createKuttSource({ key, http }: SourceOptions): Source {
  const headers = { "X-API-KEY": key };
  return {
    name: "kutt",
    async page(cursor, signal) {
      const { offset, lastAlias } = readOffsetCursor(cursor, "Kutt");
      const answer = expectObject(await http({ path: "api/v2/links", query: { skip: offset, limit: KUTT_PAGE_SIZE }, headers }, signal), "Kutt", "the link list");
      const data = expectArray(answer.data, "Kutt", "data");
      const links = data.map(readLink);

      // Paged from where Kutt says this page started, in pages of the size it says it used (it caps `limit`).
      const skip = nonNegativeInteger(answer.skip) ?? offset;
      const limit = nonNegativeInteger(answer.limit) || KUTT_PAGE_SIZE;
      const last = links.at(-1)?.alias;
      if (last !== undefined && lastAlias !== null && offset > 0 && last === lastAlias) {
        throw new SourceError(`Kutt answered the same links at skip=${offset} as on the page before: its paging repeats, stopping here.`);
      }
      const next = links.length >= limit && last !== undefined ? offsetCursor(skip + links.length, last) : null;
      const total = nonNegativeInteger(answer.total);
      return total === undefined ? { links, next } : { links, next, total };
    },
  };
}

function readLink(value: unknown): SourceLink {
  if (!isObject(value)) return { alias: "", url: "", notes: ["the source gave an entry that is not a link object"] };
  const r = new RecordReader(value);
  const link: SourceLink = { alias: r.required("address", "address"), url: r.required("target", "target") };
  const domain = r.text("domain");
  if (domain !== undefined) link.domain = domain;
  const description = r.text("description");
  if (description !== undefined) link.title = description;
  const created = r.date("created_at");
  if (created) link.createdAt = created;
  const expires = r.date("expire_in");
  if (expires !== undefined) link.endsAt = expires;
  const clicks = r.count("visit_count");
  if (typeof clicks === "number") link.clicks = clicks;
  // Kutt keeps only a bcrypt hash and answers `password: true`: the link is carried disabled rather than
  // left open to anyone, until its owner sets a password here and enables it.
  if (r.flag("password") === true) {
    link.disabled = true;
    r.note("password-protected in Kutt, which does not give the password: carried disabled, set a password and enable it");
  }
  if (r.flag("banned") === true) {
    link.disabled = true;
    r.note("banned in Kutt: carried disabled");
  }
  if (r.notes.length > 0) link.notes = r.notes;
  return link;
}

function nonNegativeInteger(value: unknown): number | undefined {
  const number = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
  return typeof number === "number" && Number.isSafeInteger(number) && number >= 0 ? number : undefined;
}
