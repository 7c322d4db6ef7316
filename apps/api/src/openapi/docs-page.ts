import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

/**
 * `GET /api/docs`: the OpenAPI document rendered by Redoc (docs/adr/0022-builds-and-operations.md).
 * Everything comes from this service: the page, Redoc's standalone bundle (from the `redoc` npm
 * package) and the document. No CDN, no fonts from elsewhere, no telemetry; the CSP allows nothing
 * else, and no one may frame the page.
 */
export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Shortener API reference</title>
<link rel="icon" href="data:,">
</head>
<body>
<redoc spec-url="/api/v1/openapi.json" hide-download-button="false" native-scrollbars="true"></redoc>
<noscript><p>This page needs JavaScript to render the API reference. The document itself is <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p></noscript>
<script src="/api/docs/redoc.standalone.js"></script>
</body>
</html>
`;

/** Redoc styles itself with inline styles (styled-components) and runs its search in a blob: worker. */
export const DOCS_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

let bundle: Promise<{ body: Buffer; etag: string }> | undefined;

/** The standalone bundle, read on first use (not at start: a process that never serves it never holds it). */
export function readRedocBundle(): Promise<{ body: Buffer; etag: string }> {
  bundle ??= readFile(createRequire(import.meta.url).resolve("redoc/bundles/redoc.standalone.js")).then((body) => ({
    body,
    etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`,
  }));
  bundle.catch(() => (bundle = undefined));
  return bundle;
}
