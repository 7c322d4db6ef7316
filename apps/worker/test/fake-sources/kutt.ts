import { startFake } from "./http-fake.ts";
import type { Quirks, Seed } from "./seed.ts";

/**
 * A Kutt API v2 as its code says (thedevs-network/kutt: server/handlers/links.handler.js `get` → `{ total, limit,
 * skip, data }`, helpers.handler.js `parseQuery` (limit defaults to 10, capped at 50) and `error` (`{ error }`
 * bodies), utils/utils.js `sanitize.link` (`id` is the uuid, `password` a boolean, `link` `{ link, url }`),
 * auth.handler.js (a wrong key ends in the JWT check's 401 "Unauthorized."); express-rate-limit answers 429 with
 * RateLimit-* and Retry-After headers).
 */
export async function startKuttFake(options: { key: string; links: Seed[]; quirks?: Quirks }) {
  const { key, links, quirks = {} } = options;
  return startFake((request) => {
    if (request.headers["x-api-key"] !== key) return { status: 401, json: { error: "Unauthorized." } };
    if (request.path !== "/api/v2/links") return { status: 404, json: { error: "Not found." } };
    const asked = Number.parseInt(request.query.get("limit") ?? "", 10) || 10;
    const limit = asked > 50 ? 50 : asked;
    const skip = quirks.stuck ? 0 : Number.parseInt(request.query.get("skip") ?? "", 10) || 0;
    const sorted = [...links].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    const data: unknown[] = sorted.slice(skip, skip + limit).map((seed, i) => ({
      id: `00000000-0000-4000-8000-${String(skip + i).padStart(12, "0")}`,
      address: seed.alias,
      banned: false,
      created_at: seed.createdAt.toISOString(),
      updated_at: seed.createdAt.toISOString(),
      description: seed.title,
      expire_in: null,
      target: seed.url,
      visit_count: seed.clicks,
      domain: seed.domain,
      password: false,
      relative_created_at: "a while ago",
      relative_expire_in: null,
      link: { link: `${seed.domain ?? "kutt.test"}/${seed.alias}`, url: `https://${seed.domain ?? "kutt.test"}/${seed.alias}` },
      ...seed.extra,
    }));
    return { status: 200, json: { total: quirks.claimTotal ?? links.length, limit, skip, data: quirks.raw && skip === 0 ? quirks.raw : data } };
  });
}
