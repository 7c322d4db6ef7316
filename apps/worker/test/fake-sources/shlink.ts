import { startFake, type FakeAnswer } from "./http-fake.ts";
import type { Quirks, Seed } from "./seed.ts";

/**
 * A Shlink REST API v3 as its reference says (shlinkio/shlink docs/swagger at v5.1.5: paths/v1_short-urls.json,
 * paths/v3_short-urls_{shortCode}_redirect-rules.json, definitions/ShortUrl.json, Pagination.json, Error.json;
 * module/Rest/src/Exception/VerifyAuthenticationException.php and test-api/Middleware/AuthenticationTest.php for
 * the 401 bodies). Shlink itself has no rate limiter: its 429 comes from a proxy in front (nginx `limit_req_status 429`).
 * `rules` are the redirect rules per short code, as the rules endpoint answers them.
 */
export async function startShlinkFake(options: { key: string; links: Seed[]; rules?: Record<string, unknown[]>; quirks?: Quirks }) {
  const { key, links, rules = {}, quirks = {} } = options;
  const problem = (status: number, type: string, title: string, detail: string): FakeAnswer => ({
    status,
    json: { type: `https://shlink.io/api/error/${type}`, title, detail, status },
    headers: { "content-type": "application/problem+json" },
  });
  const item = (seed: Seed) => ({
    shortCode: seed.alias,
    shortUrl: `https://${seed.domain ?? "s.test"}/${seed.alias}`,
    longUrl: seed.url,
    dateCreated: seed.createdAt.toISOString().replace(/\.\d{3}Z$/, "+00:00"),
    visitsSummary: { total: seed.clicks + 3, nonBots: seed.clicks, bots: 3 },
    tags: seed.tags,
    meta: { validSince: null, validUntil: null, maxVisits: null },
    domain: seed.domain,
    title: seed.title,
    crawlable: false,
    forwardQuery: true,
    hasRedirectRules: seed.alias in rules,
    ...seed.extra,
  });

  return startFake((request) => {
    const given = request.headers["x-api-key"];
    if (given === undefined) return problem(401, "missing-authentication", "Invalid authorization", 'Expected one of the following authentication headers, ["X-Api-Key"], but none were provided');
    if (given !== key) return problem(401, "invalid-api-key", "Invalid API key", "Provided API key does not exist or is invalid.");

    if (request.path === "/rest/v3/short-urls") {
      const perPage = Number(request.query.get("itemsPerPage") ?? 10);
      const page = quirks.stuck ? 1 : Math.max(1, Number(request.query.get("page") ?? 1));
      const sorted = [...links].sort((a, b) => (request.query.get("orderBy") === "dateCreated-ASC" ? a.createdAt.getTime() - b.createdAt.getTime() : b.createdAt.getTime() - a.createdAt.getTime()));
      const size = perPage === -1 ? sorted.length : perPage;
      const data: unknown[] = sorted.slice((page - 1) * size, page * size).map(item);
      const total = quirks.claimTotal ?? sorted.length;
      return {
        status: 200,
        json: {
          shortUrls: {
            data: quirks.raw && page === 1 ? quirks.raw : data,
            pagination: { currentPage: page, pagesCount: Math.max(1, Math.ceil(total / size)), itemsPerPage: size, itemsInCurrentPage: data.length, totalItems: total },
          },
        },
      };
    }
    const match = /^\/rest\/v3\/short-urls\/([^/]+)\/redirect-rules$/.exec(request.path);
    if (match) {
      const shortCode = decodeURIComponent(match[1] ?? "");
      const seed = links.find((l) => l.alias === shortCode && l.domain === (request.query.get("domain") ?? null));
      if (!seed)
        return {
          ...problem(404, "not-found", "Short URL not found", `No URL found with short code "${shortCode}"`),
          json: { type: "https://shlink.io/api/error/not-found", title: "Short URL not found", detail: `No URL found with short code "${shortCode}"`, status: 404, shortCode },
        };
      return { status: 200, json: { defaultLongUrl: seed.url, redirectRules: rules[shortCode] ?? [] } };
    }
    return problem(404, "not-found", "Not found", "Requested route does not exist.");
  });
}
