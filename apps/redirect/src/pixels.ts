import { randomBytes } from "node:crypto";
import { escapeHtml, htmlPage } from "./pages.ts";

/** A JS string literal safe inside an inline <script>: JSON, with `<`, `>`, `&` and line separators escaped. */
export function jsString(value: string): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

type Snippet = { src?: (v: string) => string; init: (v: string) => string };

/** One snippet per pixel type: the vendor's loader script and its initialisation call. */
const SNIPPETS: Record<string, Snippet> = {
  facebook: {
    src: () => "https://connect.facebook.net/en_US/fbevents.js",
    init: (v) => `window.fbq=window.fbq||function(){(fbq.q=fbq.q||[]).push(arguments)};fbq('init',${jsString(v)});fbq('track','PageView');`,
  },
  "google-analytics": {
    src: (v) => `https://www.googletagmanager.com/gtag/js?id=${encodeURIComponent(v)}`,
    init: (v) => `window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag('js',new Date());gtag('config',${jsString(v)});`,
  },
  "google-ads": {
    src: (v) => `https://www.googletagmanager.com/gtag/js?id=${encodeURIComponent(v)}`,
    init: (v) => `window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag('js',new Date());gtag('config',${jsString(v)});`,
  },
  "google-tag-manager": {
    src: (v) => `https://www.googletagmanager.com/gtm.js?id=${encodeURIComponent(v)}`,
    init: () => `window.dataLayer=window.dataLayer||[];dataLayer.push({'gtm.start':Date.now(),event:'gtm.js'});`,
  },
  adroll: { src: () => "https://s.adroll.com/j/roundtrip.js", init: (v) => `window.adroll_adv_id=${jsString(v)};` },
  bing: { src: () => "https://bat.bing.com/bat.js", init: (v) => `window.uetq=window.uetq||[];window.uetq.push('pageLoad',{ti:${jsString(v)}});` },
  linkedin: { src: () => "https://snap.licdn.com/li.lms-analytics/insight.min.js", init: (v) => `window._linkedin_partner_id=${jsString(v)};` },
  pinterest: {
    src: () => "https://s.pinimg.com/ct/core.js",
    init: (v) => `window.pintrk=window.pintrk||function(){(pintrk.queue=pintrk.queue||[]).push(arguments)};pintrk('load',${jsString(v)});pintrk('page');`,
  },
  quora: {
    src: () => "https://a.quora.com/qevents.js",
    init: (v) => `window.qp=window.qp||function(){(qp.qp=qp.qp||[]).push(arguments)};qp('init',${jsString(v)});qp('track','ViewContent');`,
  },
  x: {
    src: () => "https://static.ads-twitter.com/uwt.js",
    init: (v) => `window.twq=window.twq||function(){(twq.queue=twq.queue||[]).push(arguments)};twq('config',${jsString(v)});`,
  },
  tiktok: {
    src: () => "https://analytics.tiktok.com/i18n/pixel/events.js",
    init: (v) => `window.ttq=window.ttq||[];ttq.push(['load',${jsString(v)}]);ttq.push(['page']);`,
  },
};

/**
 * Step 7 of CONTRACT §7: a page that fires each pixel and then moves on to the destination, by script
 * and by <meta refresh> within a second. Every value is escaped; a nonce-based CSP allows only these
 * scripts (and what they load).
 */
export function pixelPage(pixels: Array<{ type: string; value: string }>, destination: string): { html: string; csp: string } {
  const nonce = randomBytes(16).toString("base64");
  const tags = pixels
    .map((p) => {
      const snippet = SNIPPETS[p.type];
      if (!snippet) return "";
      const init = `<script nonce="${nonce}">${snippet.init(p.value)}</script>`;
      return snippet.src ? `${init}<script nonce="${nonce}" async src="${escapeHtml(snippet.src(p.value))}"></script>` : init;
    })
    .join("");
  const go = `<script nonce="${nonce}">setTimeout(function(){location.replace(${jsString(destination)})},500);</script>`;
  const html = htmlPage(
    "Redirecting…",
    `<h1>Redirecting…</h1><p><a href="${escapeHtml(destination)}" rel="noreferrer">Continue</a></p>${tags}${go}`,
    `<meta http-equiv="refresh" content="1;url=${escapeHtml(destination)}">`,
  );
  const csp = `default-src 'none'; script-src 'nonce-${nonce}' 'strict-dynamic' https:; img-src https: data:; connect-src https:; frame-src https:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
  return { html, csp };
}
