import { startFake } from "./http-fake.ts";
import type { Quirks, Seed } from "./seed.ts";

/**
 * A Dub API as its code says (dubinc/dub at 1de955f: app/api/links/route.ts and lib/api/links/get-links-for-workspace.ts —
 * a bare list, newest first, archived links hidden unless `showArchived`, only links outside folders unless
 * `folderId`, `startingAfter` an existing link id or a 422 "Invalid cursor"; lib/zod/schemas/links.ts `LinkSchema`
 * and `pageSize` ≤ 100; lib/zod/schemas/folders.ts (`pageSize` ≤ 50); lib/api/errors.ts `{ error: { code, message,
 * doc_url } }`; lib/auth/rate-limit-request.ts: a 429 carries X-RateLimit-* and a Retry-After holding the reset time
 * in epoch milliseconds). A seed's folder is `extra.folderId`; `folders` lists the workspace's folders.
 */
export async function startDubFake(options: { key: string; links: Seed[]; folders?: string[]; quirks?: Quirks }) {
  const { key, links, folders = [], quirks = {} } = options;
  const error = (status: number, code: string, message: string) => ({ status, json: { error: { code, message, doc_url: `https://dub.co/docs/api-reference/errors#${code.replace("_", "-")}` } } });
  const id = (seed: Seed) => `link_${seed.alias}`;
  const json = (seed: Seed) => ({
    id: id(seed),
    domain: seed.domain ?? "dub.sh",
    key: seed.alias,
    url: seed.url,
    trackConversion: false,
    externalId: null,
    tenantId: null,
    programId: null,
    partnerId: null,
    archived: false,
    expiresAt: null,
    expiredUrl: null,
    disabledAt: null,
    password: null,
    proxy: false,
    title: seed.title,
    description: null,
    image: null,
    video: null,
    rewrite: false,
    doIndex: false,
    ios: null,
    android: null,
    geo: null,
    publicStats: false,
    tags: seed.tags.map((name, i) => ({ id: `tag_${name}_${i}`, name, color: "blue" })),
    folderId: null,
    comments: null,
    shortLink: `https://${seed.domain ?? "dub.sh"}/${seed.alias}`,
    qrCode: `https://api.dub.co/qr?url=https://${seed.domain ?? "dub.sh"}/${seed.alias}`,
    utm_source: null,
    utm_medium: null,
    utm_campaign: null,
    utm_term: null,
    utm_content: null,
    testVariants: null,
    testStartedAt: null,
    testCompletedAt: null,
    userId: "user_1",
    workspaceId: "ws_1",
    clicks: seed.clicks,
    leads: 0,
    conversions: 0,
    sales: 0,
    saleAmount: 0,
    lastClicked: null,
    createdAt: seed.createdAt.toISOString(),
    updatedAt: seed.createdAt.toISOString(),
    tagId: null,
    projectId: "ws_1",
    webhookIds: [],
    ...seed.extra,
  });

  return startFake((request) => {
    if (request.headers.authorization !== `Bearer ${key}`) return error(401, "unauthorized", "Unauthorized: Invalid API key.");
    const q = request.query;
    if (request.path === "/folders") {
      const size = Number(q.get("pageSize") ?? 50);
      if (size > 50) return error(422, "unprocessable_entity", "pageSize: Max page size is 50.");
      const page = Number(q.get("page") ?? 1);
      return {
        status: 200,
        json: folders
          .slice((page - 1) * size, page * size)
          .map((f) => ({ id: f, name: f, description: null, type: "default", accessLevel: "write", createdAt: "2024-01-01T00:00:00.000Z", updatedAt: "2024-01-01T00:00:00.000Z" })),
      };
    }
    if (request.path !== "/links") return error(404, "not_found", "The requested resource was not found.");
    const size = Number(q.get("pageSize") ?? 100);
    if (size > 100) return error(422, "unprocessable_entity", "pageSize: Max page size is 100.");
    const folder = q.get("folderId");
    const all = links
      .map((seed) => ({ seed, body: json(seed) }))
      .filter(({ body }) => (body.folderId ?? null) === folder && (q.get("showArchived") === "true" || body.archived !== true))
      .sort((a, b) => b.seed.createdAt.getTime() - a.seed.createdAt.getTime() || (a.body.id < b.body.id ? -1 : 1));
    let from = 0;
    const after = q.get("startingAfter");
    if (after && !quirks.stuck) {
      const at = links.findIndex((seed) => id(seed) === after);
      if (at === -1) return error(422, "unprocessable_entity", "Invalid cursor: the provided ID does not exist.");
      from = all.findIndex(({ body }) => body.id === after) + 1;
    }
    const page = all.slice(from, from + size).map(({ body }) => body);
    return { status: 200, json: quirks.raw && !after && folder === null ? quirks.raw : page };
  });
}
