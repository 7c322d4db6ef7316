import { startFake } from "./http-fake.ts";
import type { Quirks, Seed } from "./seed.ts";

/**
 * A YOURLS API as its code says (YOURLS/YOURLS: yourls-api.php, includes/functions-api.php
 * `yourls_api_action_stats` with `filter`/`limit`/`start`, includes/functions.php `yourls_get_stats`
 * (ORDER BY timestamp DESC for `last`, `links` left out when there are none, values as MySQL gives them:
 * strings), includes/auth.php (403 `{ message, errorCode: "403", callback }`); https://yourls.org/docs/guide/advanced/api).
 * Served at `/yourls/yourls-api.php`, the site being `/yourls`. YOURLS has no 429 of its own: a proxy's.
 */
export async function startYourlsFake(options: { signature: string; user?: { username: string; password: string }; links: Seed[]; quirks?: Quirks }) {
  const { signature, user, links, quirks = {} } = options;
  const fake = await startFake((request) => {
    if (request.path !== "/yourls/yourls-api.php") return { status: 404, text: "Not Found" };
    const q = request.query;
    const signed = q.get("signature") === signature;
    const logged = user !== undefined && q.get("username") === user.username && q.get("password") === user.password;
    if (!signed && !logged) {
      const message = q.has("signature") || q.has("username") ? "Invalid username or password" : "Please log in";
      return { status: 403, json: { message, errorCode: "403", callback: "" } };
    }
    if (q.get("action") !== "stats") return { status: 400, json: { errorCode: 400, message: 'Unknown or missing "action" parameter' } };
    const limit = Number.parseInt(q.get("limit") ?? "10", 10) || 0;
    const start = quirks.stuck ? 0 : Number.parseInt(q.get("start") ?? "0", 10) || 0;
    const sorted = q.get("filter") === "last" ? [...links].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime()) : [...links].sort((a, b) => b.clicks - a.clicks);
    const rows = sorted.slice(start, start + limit);
    const answer: Record<string, unknown> = {};
    if (quirks.raw && start === 0) answer.links = Object.fromEntries(quirks.raw.map((raw, i) => [`link_${i + 1}`, raw]));
    else if (rows.length > 0) {
      answer.links = Object.fromEntries(
        rows.map((seed, i) => [
          `link_${i + 1}`,
          {
            shorturl: `${fake.url}/yourls/${seed.alias}`,
            url: seed.url,
            title: seed.title ?? "",
            timestamp: seed.createdAt.toISOString().slice(0, 19).replace("T", " "),
            ip: "127.0.0.1",
            clicks: String(seed.clicks),
            ...seed.extra,
          },
        ]),
      );
    }
    const total = quirks.claimTotal ?? links.length;
    answer.stats = { total_links: String(total), total_clicks: String(links.reduce((sum, l) => sum + l.clicks, 0)) };
    answer.statusCode = 200;
    answer.message = "success";
    return { status: 200, json: answer };
  });
  return fake;
}
