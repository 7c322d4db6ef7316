import type { IncomingMessage, ServerResponse } from "node:http";
import proxyaddr from "proxy-addr";
import {
  chooseDestination,
  gateVisit,
  isClickLimited,
  mergeQuery,
  verifyPassword,
  type ServedDomain,
  type VisitLink,
} from "@shortener/core";
import { createFailedTries, createPostgresStore, loggableError } from "@shortener/web-guard";
import { createResolver } from "./cache.ts";
import { createClickBuffer } from "./clicks.ts";
import { createLimitedCounter } from "./limited.ts";
import type { RedirectDeps } from "./deps.ts";
import { loadGeoIp } from "./geoip.ts";
import { DISABLED_PAGE, EXPIRED_PAGE, NOT_FOUND_PAGE, TOO_MANY_TRIES_PAGE, UNKNOWN_HOST_PAGE, messagePage, passwordPage } from "./pages.ts";
import { hasValidPass, passCookie, readFormBody } from "./password.ts";
import { pixelPage } from "./pixels.ts";
import { describeAgent, languagesOf, referrerHost, type AgentInfo } from "./traits.ts";

export type RedirectApp = {
  /** A node:http request handler for every visitor path. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Subscribes to change notifications; call before serving. */
  start(): Promise<void>;
  /** Writes every buffered click and stops listening. */
  close(): Promise<void>;
  /** Writes buffered clicks now (tests, shutdown). */
  flushClicks(): Promise<void>;
};

const NO_STORE = "private, no-store";
/**
 * Every page of the visitor side may not be framed (CONTRACT §15) and runs no script; its styles are
 * inline. The pixel page sends its own, nonce-based policy instead.
 */
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
const ALIAS = /^[A-Za-z0-9_-]{1,255}$/;

function sendPage(res: ServerResponse, status: number, html: string, isHead: boolean, headers: Record<string, string> = {}): void {
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

function sendRedirect(res: ServerResponse, status: number, location: string): void {
  res.writeHead(status, { location, "cache-control": NO_STORE, "content-length": 0 });
  res.end();
}

/** The visitor side (CONTRACT §7): host + alias → a redirect or a small page, and a click. */
export function createRedirect(deps: RedirectDeps): RedirectApp {
  const { config } = deps;
  const clicksDb = (deps.clicksDatabase ?? deps.database).db;
  const limited = createLimitedCounter(clicksDb, deps.now);
  const resolver = createResolver(deps.database, deps.now, config.cache);
  const clicks = createClickBuffer(clicksDb, config.clickBuffer, deps.log);
  let geo = deps.geoIp;
  const trust = config.trustProxy === true ? () => true : config.trustProxy === false ? () => false : proxyaddr.compile(config.trustProxy);
  const ownsFailedTries = !deps.failedTries;
  const failedTries = deps.failedTries ?? createFailedTries({ store: createPostgresStore(deps.database), now: () => deps.now().getTime(), ...(deps.log ? { log: deps.log } : {}) });
  const rotations = new Map<number, number>();

  // With no proxy trusted, the address is the socket's: skip parsing X-Forwarded-For on every visit.
  const clientIp = config.trustProxy === false ? (req: IncomingMessage) => req.socket.remoteAddress ?? "" : (req: IncomingMessage) => proxyaddr(req, trust);
  const isSecure = (req: IncomingMessage) =>
    (req.socket as { encrypted?: boolean }).encrypted === true ||
    (trust(req.socket.remoteAddress ?? "", 0) && String(req.headers["x-forwarded-proto"] ?? "").split(",")[0]?.trim() === "https");

  function countryOf(req: IncomingMessage): string | null {
    if (config.geoCountryHeader) {
      const value = String(req.headers[config.geoCountryHeader] ?? "").trim().toUpperCase();
      return /^[A-Z]{2}$/.test(value) && value !== "XX" ? value : null;
    }
    return geo?.lookup(clientIp(req)) ?? null;
  }

  function nextRotation(link: VisitLink): number {
    const next = (rotations.get(link.id) ?? link.lastRotation ?? -1) + 1;
    rotations.set(link.id, next);
    return next;
  }

  function notFound(res: ServerResponse, domain: ServedDomain, isHead: boolean): void {
    if (domain.notFoundPage) sendRedirect(res, 302, domain.notFoundPage);
    else sendPage(res, 404, NOT_FOUND_PAGE, isHead);
  }

  function expired(res: ServerResponse, link: VisitLink, isHead: boolean): void {
    if (link.expirationUrl) sendRedirect(res, 302, link.expirationUrl);
    else sendPage(res, 410, EXPIRED_PAGE, isHead);
  }

  /**
   * Steps 7–11: the destination, the response, and the click. Synchronous unless the link is
   * click-limited: then the visit waits for its admission, and the returned promise says when it is done.
   */
  function deliver(req: IncomingMessage, res: ServerResponse, link: VisitLink, query: string, now: Date, extraHeaders?: Record<string, string>): Promise<void> | void {
    const isHead = req.method === "HEAD";
    const agent = describeAgent(req.headers["user-agent"]);
    const isCounted = !isHead && !agent.isBot;
    if (isCounted && isClickLimited(link)) {
      return limited.count(link.id).then((count) => {
        if (count === null) {
          resolver.markExhausted(link);
          return expired(res, link, isHead);
        }
        link.clicks = Math.max(link.clicks, count);
        send(req, res, link, query, now, agent, isCounted, extraHeaders);
      });
    }
    send(req, res, link, query, now, agent, isCounted, extraHeaders);
  }

  function send(req: IncomingMessage, res: ServerResponse, link: VisitLink, query: string, now: Date, agent: AgentInfo, isCounted: boolean, extraHeaders?: Record<string, string>): void {
    const isHead = req.method === "HEAD";
    const needsCountry = link.targetType === 1 || isCounted;
    const country = needsCountry ? countryOf(req) : null;
    const languages = link.targetType === 3 || isCounted ? languagesOf(req) : [];
    const choice = chooseDestination(link, { country, platform: agent.platform, languages }, link.targetType === 4 ? nextRotation(link) : 0);
    const location = mergeQuery(choice.url, query);

    // Bots are sent straight on (CONTRACT §15), like visitors who ask not to be tracked.
    const skipPixels = agent.isBot || req.headers["sec-gpc"] === "1" || req.headers.dnt === "1";
    if (link.pixels.length && !skipPixels) {
      const page = pixelPage(link.pixels, location);
      sendPage(res, 200, page.html, isHead, { "content-security-policy": page.csp, ...extraHeaders });
    } else if (extraHeaders) {
      res.writeHead(config.redirectStatus, { location, "cache-control": NO_STORE, "content-length": 0, ...extraHeaders });
      res.end();
    } else {
      sendRedirect(res, config.redirectStatus, location);
    }

    if (isCounted) {
      clicks.add({
        linkId: link.id,
        at: now,
        country,
        platform: agent.platform,
        browser: agent.browser,
        device: agent.device,
        language: languages[0] ?? null,
        referrer: referrerHost(req),
        counted: isClickLimited(link),
        rotation: choice.rotation,
      });
    }
  }

  /**
   * Step 6, POST: the password form's answer. The try is counted before the password is checked
   * (CONTRACT §15), so concurrent wrong tries never get past the limit; a right one is taken back.
   */
  async function submitPassword(req: IncomingMessage, res: ServerResponse, link: VisitLink, query: string): Promise<void> {
    const passwordHash = link.passwordHash as string;
    const form = await readFormBody(req);
    const password = form?.get("password") ?? "";
    const verdict = await failedTries.begin(clientIp(req), `link:${link.id}`);
    if (!verdict.isAllowed) return sendPage(res, 429, TOO_MANY_TRIES_PAGE, false, { "retry-after": String(verdict.retryAfter) });
    if (!password || password.length > 128 || !(await verifyPassword(password, passwordHash))) {
      return sendPage(res, 401, passwordPage(true), false);
    }
    await verdict.refund();
    const now = deps.now();
    const cookie = passCookie({ secret: config.secret, linkId: link.id, alias: link.alias, passwordHash, now, isSecure: isSecure(req) });
    const gate = gateVisit(link, now, { hasPasswordPass: true });
    if (gate === "disabled") return sendPage(res, 404, DISABLED_PAGE, false);
    if (gate === "expired") return expired(res, link, false);
    return deliver(req, res, link, query, now, { "set-cookie": cookie });
  }

  /**
   * Steps 1–6. A visit whose domain and link are in memory is answered synchronously (no promise on the
   * hot path); a lookup, a click-limited admission or a password form returns a promise instead.
   */
  function visit(req: IncomingMessage, res: ServerResponse): Promise<void> | void {
    const method = req.method ?? "GET";
    if (method !== "GET" && method !== "HEAD" && method !== "POST") {
      return sendPage(res, 405, messagePage(405, "Method not allowed", "Only GET and HEAD are served here."), false, { allow: "GET, HEAD" });
    }
    const domain = resolver.domain(req.headers.host ?? "");
    return domain instanceof Promise ? domain.then((found) => visitOn(req, res, found)) : visitOn(req, res, domain);
  }

  function visitOn(req: IncomingMessage, res: ServerResponse, domain: ServedDomain | null): Promise<void> | void {
    const isHead = req.method === "HEAD";
    if (!domain) return sendPage(res, 404, UNKNOWN_HOST_PAGE, isHead);

    const url = req.url ?? "/";
    const q = url.indexOf("?");
    let path = q === -1 ? url : url.slice(0, q);
    const query = q === -1 ? "" : url.slice(q + 1);
    if (path === "/") {
      if (domain.indexPage) return sendRedirect(res, 302, domain.indexPage);
      return sendPage(res, 404, NOT_FOUND_PAGE, isHead);
    }
    if (path.length > 2 && path.endsWith("/")) path = path.slice(0, -1);
    const alias = path.slice(1);
    if (!ALIAS.test(alias)) return notFound(res, domain, isHead);
    const link = resolver.link(domain.id, alias);
    return link instanceof Promise ? link.then((found) => visitLink(req, res, domain, found, query)) : visitLink(req, res, domain, link, query);
  }

  function visitLink(req: IncomingMessage, res: ServerResponse, domain: ServedDomain, link: VisitLink | null, query: string): Promise<void> | void {
    const isHead = req.method === "HEAD";
    if (!link) return notFound(res, domain, isHead);

    if (req.method === "POST") {
      if (!link.passwordHash) {
        req.resume();
        return sendPage(res, 405, messagePage(405, "Method not allowed", "Only GET and HEAD are served here."), false, { allow: "GET, HEAD" });
      }
      return submitPassword(req, res, link, query);
    }
    const now = deps.now();
    const hasPass = link.passwordHash ? hasValidPass(req, { secret: config.secret, linkId: link.id, passwordHash: link.passwordHash, now }) : true;
    switch (gateVisit(link, now, { hasPasswordPass: hasPass })) {
      case "disabled":
        return sendPage(res, 404, DISABLED_PAGE, isHead);
      case "expired":
        return expired(res, link, isHead);
      case "password":
        return sendPage(res, 200, passwordPage(false), isHead);
      case "open":
        return deliver(req, res, link, query, now);
    }
  }

  function failed(req: IncomingMessage, res: ServerResponse, error: unknown): void {
    // Without the query string or any value a database error carries (CONTRACT §15).
    deps.log?.error({ err: loggableError(error), path: (req.url ?? "").split("?")[0] }, "redirect failed");
    if (!res.headersSent) sendPage(res, 500, messagePage(500, "Something went wrong", "Please try again in a moment."), false);
    else res.destroy();
  }

  return {
    handle(req, res) {
      try {
        const pending = visit(req, res);
        if (pending) pending.catch((error: unknown) => failed(req, res, error));
      } catch (error) {
        failed(req, res, error);
      }
    },
    async start() {
      if (!geo) {
        geo = loadGeoIp();
      }
      // Country targeting must work from the first visit: wait for the data (about a second).
      await geo.ready.catch((error: unknown) => deps.log?.error({ err: error }, "GeoIP data could not be loaded: countries will be unknown"));
      await resolver.start();
    },
    flushClicks: () => clicks.flush(),
    async close() {
      await clicks.close();
      await resolver.stop();
      if (ownsFailedTries) await failedTries.close();
    },
  };
}
