import { startFake } from "./http-fake.ts";
import type { Quirks, Seed } from "./seed.ts";

/**
 * A Bitly API v4 as its published reference says (https://dev.bitly.com/api-reference, read 2026-11: getUser →
 * `default_group_guid`; getBitlinksByGroup → `{ links, pagination: { prev, next, size, page, total, search_after } }`
 * with `size`, `search_after` and `archived` (default "off"); getClicksForBitlink with `unit=day&units=-1` →
 * `{ link_clicks: [{ clicks, date }], units, unit, unit_reference }`; errors `{ message, resource, description }`:
 * 403 FORBIDDEN for a token it does not accept, 429 RATE_LIMIT_EXCEEDED without a documented Retry-After).
 * Bitly cannot run here: this fake is the documentation's word only. A seed's custom back-halves are `extra.custom_bitlinks`.
 */
export async function startBitlyFake(options: { token: string; group?: string; links: Seed[]; quirks?: Quirks }) {
  const { token, group = "Bg7abcDEF12", links, quirks = {} } = options;
  const stamp = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, "+0000");
  const bitlink = (seed: Seed) => `${seed.domain ?? "bit.ly"}/${seed.alias}`;
  const fake = await startFake((request) => {
    if (request.headers.authorization !== `Bearer ${token}`)
      return { status: 403, json: { message: "FORBIDDEN", resource: "bitlinks", description: "You are currently forbidden to access this resource." } };
    const q = request.query;
    if (request.path === "/v4/user") return { status: 200, json: { login: "someone", name: "Someone", is_active: true, default_group_guid: group } };
    if (request.path === `/v4/groups/${group}/bitlinks`) {
      const size = Math.min(Number(q.get("size") ?? 50) || 50, 100);
      const archived = q.get("archived") ?? "off";
      const visible = [...links].filter((seed) => archived === "both" || (archived === "on") === (seed.extra?.archived === true)).sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
      const after = q.get("search_after");
      const from = after && !quirks.stuck ? Number(Buffer.from(after, "base64url").toString()) : 0;
      const page = visible.slice(from, from + size);
      const nextFrom = from + page.length;
      const more = nextFrom < visible.length;
      const token = Buffer.from(String(quirks.stuck ? size : nextFrom)).toString("base64url");
      const items = page.map((seed) => ({
        references: { group: `https://api-ssl.bitly.com/v4/groups/${group}` },
        link: `https://${bitlink(seed)}`,
        id: bitlink(seed),
        long_url: seed.url,
        title: seed.title,
        archived: false,
        created_at: stamp(seed.createdAt),
        created_by: "someone",
        client_id: "a5e8cebb233c5d07e5c553e917dffb92fec5264d",
        custom_bitlinks: [],
        tags: seed.tags,
        deeplinks: [],
        is_deleted: false,
        ...seed.extra,
      }));
      return {
        status: 200,
        json: {
          links: quirks.raw && !after ? quirks.raw : items,
          pagination: {
            prev: "",
            next: more ? `https://api-ssl.bitly.com/v4/groups/${group}/bitlinks?search_after=${token}&size=${size}` : "",
            size,
            page: 1,
            total: quirks.claimTotal ?? visible.length,
            search_after: more ? token : "",
          },
        },
      };
    }
    const clicks = /^\/v4\/bitlinks\/([^/]+)\/([^/]+)\/clicks$/.exec(request.path);
    if (clicks) {
      const id = `${decodeURIComponent(clicks[1] ?? "")}/${decodeURIComponent(clicks[2] ?? "")}`;
      const seed = links.find((s) => bitlink(s) === id);
      if (!seed) return { status: 404, json: { message: "NOT_FOUND", resource: "bitlinks", description: "What you are looking for cannot be found." } };
      const days = Object.entries(seed.clicksByDay ?? {}).sort(([a], [b]) => (a < b ? 1 : -1));
      return { status: 200, json: { link_clicks: days.map(([day, n]) => ({ clicks: n, date: `${day}T00:00:00+0000` })), units: -1, unit: "day", unit_reference: "2026-11-27T00:00:00+0000" } };
    }
    return { status: 404, json: { message: "NOT_FOUND", resource: "bitlinks", description: "What you are looking for cannot be found." } };
  });
  return fake;
}
