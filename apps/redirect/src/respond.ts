import type { IncomingMessage, ServerResponse } from "node:http";
import type { ServedDomain, VisitLink } from "@shortener/core";
import { EXPIRED_PAGE, NOT_FOUND_PAGE, messagePage } from "./pages.ts";

/** The visitor side's answers: a small page or a redirect, never cached by the browser or a proxy. */
export const NO_STORE = "private, no-store";
/**
 * Every page of the visitor side may not be framed (CONTRACT §15) and runs no script; its styles are
 * inline. The pixel page sends its own, nonce-based policy instead.
 */
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export function sendPage(res: ServerResponse, status: number, html: string, isHead: boolean, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "cache-control": NO_STORE,
    "content-length": Buffer.byteLength(html),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "content-security-policy": PAGE_CSP,
    "x-frame-options": "DENY",
    ...headers,
  });
  res.end(isHead ? undefined : html);
}

export function sendRedirect(res: ServerResponse, status: number, location: string, headers?: Record<string, string>): void {
  res.writeHead(status, headers ? { location, "cache-control": NO_STORE, "content-length": 0, ...headers } : { location, "cache-control": NO_STORE, "content-length": 0 });
  res.end();
}

/** No such link on this domain: the domain's not-found page if it has one, else ours. */
export function sendNotFound(res: ServerResponse, domain: ServedDomain, isHead: boolean): void {
  if (domain.notFoundPage) sendRedirect(res, 302, domain.notFoundPage);
  else sendPage(res, 404, NOT_FOUND_PAGE, isHead);
}

/** An expired link: its expiration URL if it has one, else 410. */
export function sendExpired(res: ServerResponse, link: VisitLink, isHead: boolean): void {
  if (link.expirationUrl) sendRedirect(res, 302, link.expirationUrl);
  else sendPage(res, 410, EXPIRED_PAGE, isHead);
}

export function sendMethodNotAllowed(res: ServerResponse): void {
  sendPage(res, 405, messagePage(405, "Method not allowed", "Only GET and HEAD are served here."), false, { allow: "GET, HEAD" });
}

/**
 * An app-link file (CONTRACT §25) as stored, byte for byte, as JSON; `null`: the domain has none, a 404.
 * `no-cache`: a client or proxy that keeps it asks again, so an edit shows at once.
 */
export function sendAppLinkFile(req: IncomingMessage, res: ServerResponse, text: string | null): void {
  const isHead = req.method === "HEAD";
  if (text === null) return sendPage(res, 404, NOT_FOUND_PAGE, isHead);
  const body = Buffer.from(text, "utf8");
  res.writeHead(200, { "content-type": "application/json", "cache-control": "no-cache", "content-length": body.length, "x-content-type-options": "nosniff" });
  res.end(isHead ? undefined : body);
}
