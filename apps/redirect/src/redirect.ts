import type { IncomingMessage, ServerResponse } from "node:http";
import { findDomainByHost } from "@shortener/core";
import type { RedirectDeps } from "./deps.ts";
import { NOT_FOUND_PAGE, UNKNOWN_HOST_PAGE, messagePage } from "./pages.ts";

export type RedirectApp = {
  /** A node:http request handler for every visitor path. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  close(): Promise<void>;
};

const HTML_HEADERS = { "content-type": "text/html; charset=utf-8", "cache-control": "private, no-store" } as const;

function sendPage(res: ServerResponse, status: number, html: string, isHead: boolean): void {
  res.writeHead(status, { ...HTML_HEADERS, "content-length": Buffer.byteLength(html) });
  res.end(isHead ? undefined : html);
}

function sendRedirect(res: ServerResponse, status: number, location: string): void {
  res.writeHead(status, { location, "cache-control": "private, no-store", "content-length": 0 });
  res.end();
}

/** The visitor side (CONTRACT §7): host + path → a redirect or a small page. */
export function createRedirect(deps: RedirectDeps): RedirectApp {
  async function visit(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const isHead = req.method === "HEAD";
    if (req.method !== "GET" && !isHead) {
      res.writeHead(405, { allow: "GET, HEAD", ...HTML_HEADERS });
      res.end(messagePage(405, "Method not allowed", "Only GET and HEAD are served here."));
      return;
    }
    const domain = await findDomainByHost({ db: deps.database.db, now: deps.now }, req.headers.host ?? "");
    if (!domain) return sendPage(res, 404, UNKNOWN_HOST_PAGE, isHead);
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (path === "/") {
      if (domain.indexPage) return sendRedirect(res, 302, domain.indexPage);
      return sendPage(res, 404, NOT_FOUND_PAGE, isHead);
    }
    if (domain.notFoundPage) return sendRedirect(res, 302, domain.notFoundPage);
    return sendPage(res, 404, NOT_FOUND_PAGE, isHead);
  }

  return {
    handle(req, res) {
      visit(req, res).catch((error: unknown) => {
        deps.log?.error({ err: error, url: req.url }, "redirect failed");
        if (!res.headersSent) sendPage(res, 500, messagePage(500, "Something went wrong", "Please try again in a moment."), false);
        else res.destroy();
      });
    },
    async close() {},
  };
}
