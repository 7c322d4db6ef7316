import type { OpenGraph } from "@shortener/core";
import { escapeHtml, htmlPage } from "./pages.ts";

/**
 * The Open Graph preview page (CONTRACT §25, docs/link-features.md): what a link-preview bot (Slackbot,
 * Twitterbot, facebookexternalhit…) is shown for a link that has a preview, once the link's gates are
 * passed. The tags the platforms read, every value HTML-escaped; a strict CSP (no script, nothing loaded:
 * `MESSAGE_PAGE_CSP`); and, for a person a bot's User-Agent was wrongly given to, a link on.
 *
 * `og:url` is the short URL itself, never the destination: the platforms treat `og:url` as the page's
 * canonical address and would read the destination's own tags from it instead.
 */
export function previewPage(og: OpenGraph, shortUrl: string, destination: string): string {
  const meta = (attribute: "property" | "name", key: string, value: string) => `<meta ${attribute}="${key}" content="${escapeHtml(value)}">`;
  const head = [
    og.title !== null ? meta("property", "og:title", og.title) : "",
    og.description !== null ? meta("property", "og:description", og.description) + meta("name", "description", og.description) : "",
    og.image !== null ? meta("property", "og:image", og.image) : "",
    meta("property", "og:url", shortUrl),
    meta("property", "og:type", "website"),
    meta("name", "twitter:card", og.image !== null ? "summary_large_image" : "summary"),
  ].join("");
  const body =
    (og.title !== null ? `<h1>${escapeHtml(og.title)}</h1>` : "") +
    (og.description !== null ? `<p>${escapeHtml(og.description)}</p>` : "") +
    `<p><a href="${escapeHtml(destination)}" rel="noreferrer">Continue</a></p>`;
  return htmlPage(og.title ?? shortUrl, body, head);
}
