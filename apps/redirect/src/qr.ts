import type { IncomingMessage, ServerResponse } from "node:http";
import { coerceFormValues, createQrCache, gateVisit, parseInput, QrOptionsInput, shortUrlOf, ValidationError, type QrImage, type ServedDomain, type VisitLink } from "@shortener/core";
import type { RedirectConfig } from "./deps.ts";
import { NOT_FOUND_PAGE, messagePage } from "./pages.ts";
import { sendMethodNotAllowed, sendPage } from "./respond.ts";

const OPTIONS = ["format", "size", "margin", "ecc"] as const;

/**
 * `GET {short_url}/qr` (CONTRACT §17, docs/adr/0024-qr-codes.md): the QR code of a link that would
 * send its visitors on — not of a disabled or expired one (the small 404 page, whatever the domain's
 * `not_found_page` says: an image was asked for). A password link has its code: the code holds only
 * the short URL, which the visitor then opens and answers the form at. Never a visit, never counted.
 * Bad options: a small 422 page listing them. Drawn images are cached (core's `createQrCache`).
 */
export function createQrResponder(config: RedirectConfig, now: () => Date) {
  const codes = createQrCache(config.qrCache);

  function sendError(res: ServerResponse, error: ValidationError, isHead: boolean): void {
    sendPage(res, 422, messagePage(422, "That QR code cannot be drawn", Object.values(error.fields).flat().join(" ")), isHead);
  }

  function sendImage(req: IncomingMessage, res: ServerResponse, image: QrImage): void {
    const headers = {
      "content-type": image.format === "svg" ? "image/svg+xml; charset=utf-8" : image.contentType,
      // A code never changes while its link keeps its address; `no-cache` still asks each time (a 304
      // when unchanged), so a disabled link's code stops being shown.
      "cache-control": "public, no-cache",
      etag: image.etag,
      "x-content-type-options": "nosniff",
      ...(image.format === "svg" ? { "content-security-policy": "default-src 'none'; frame-ancestors 'none'" } : {}),
    };
    if (req.headers["if-none-match"] === image.etag) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, "content-length": image.body.length });
    res.end(req.method === "HEAD" ? undefined : image.body);
  }

  return function sendQr(req: IncomingMessage, res: ServerResponse, domain: ServedDomain, link: VisitLink | null, query: string): void {
    const isHead = req.method === "HEAD";
    if (req.method === "POST") {
      req.resume();
      return sendMethodNotAllowed(res);
    }
    if (!link || gateVisit(link, now(), { hasPasswordPass: true }) !== "open") return sendPage(res, 404, NOT_FOUND_PAGE, isHead);
    let image: QrImage;
    try {
      const params = new URLSearchParams(query);
      const input: Record<string, string> = {};
      for (const name of OPTIONS) {
        const value = params.get(name);
        if (value !== null && value !== "") input[name] = value;
      }
      image = codes.get(shortUrlOf(domain.name, link.alias, config.shortUrlScheme), parseInput(QrOptionsInput, coerceFormValues(QrOptionsInput, input)));
    } catch (error) {
      if (error instanceof ValidationError) return sendError(res, error, isHead);
      throw error;
    }
    sendImage(req, res, image);
  };
}
