import type { FastifyReply, FastifyRequest } from "fastify";
import type { Page } from "@shortener/core";

/** CONTRACT §2 envelopes. */
export function sendOne(reply: FastifyReply, data: unknown, status: 200 | 201 = 200) {
  return reply.code(status).send({ data, status });
}

export function sendDeleted(reply: FastifyReply, id: number, object: "link" | "domain" | "space" | "pixel" | "user" | "webhook" | "api_key" | "workspace" | "member" | "invitation") {
  return reply.code(200).send({ id, object, deleted: true, status: 200 });
}

/** The paginator's `meta` without `path` (CONTRACT §2); tRPC lists answer `{ data, meta }` with it. */
export function pageMeta(page: Page<unknown>) {
  const lastPage = Math.max(1, Math.ceil(page.total / page.perPage));
  const offset = (page.page - 1) * page.perPage;
  return {
    current_page: page.page,
    from: page.data.length ? offset + 1 : null,
    last_page: lastPage,
    per_page: page.perPage,
    to: page.data.length ? offset + page.data.length : null,
    total: page.total,
  };
}

/**
 * The paginator: `links.*` are absolute URLs that keep every filter the request sent, on the base the
 * request was given (`request.baseUrl`: never an arbitrary Host header, http/base-url.ts).
 */
export function sendList<T, J>(request: FastifyRequest, reply: FastifyReply, page: Page<T>, toJson: (item: T) => J) {
  const meta = pageMeta(page);
  const lastPage = meta.last_page;
  const path = `${request.baseUrl}${request.url.split("?")[0]}`;
  const query = new URLSearchParams(request.url.includes("?") ? request.url.slice(request.url.indexOf("?") + 1) : "");
  const pageUrl = (n: number) => {
    query.set("page", String(n));
    return `${path}?${query.toString()}`;
  };
  return reply.code(200).send({
    data: page.data.map(toJson),
    links: {
      first: pageUrl(1),
      last: pageUrl(lastPage),
      prev: page.page > 1 ? pageUrl(Math.min(page.page - 1, lastPage)) : null,
      next: page.page < lastPage ? pageUrl(page.page + 1) : null,
    },
    meta: { current_page: meta.current_page, from: meta.from, last_page: lastPage, path, per_page: meta.per_page, to: meta.to, total: meta.total },
    status: 200,
  });
}
