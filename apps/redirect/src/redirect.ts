import type { IncomingMessage, ServerResponse } from "node:http";
import { gateVisit, verifyPassword, type ServedDomain, type VisitLink } from "@shortener/core";
import { isConnectionError } from "@shortener/db";
import { createFailedTries, createPostgresStore, loggableError } from "@shortener/web-guard";
import { botOf } from "./bots.ts";
import { createResolver } from "./cache.ts";
import { createClickBuffer } from "./clicks.ts";
import { createDelivery } from "./deliver.ts";
import type { RedirectDeps, VisitRecord } from "./deps.ts";
import { loadGeoIp } from "./geoip.ts";
import { createLimitedCounter } from "./limited.ts";
import { createOrphanBuffer, DEFAULT_ORPHAN_BUFFER } from "./orphans.ts";
import { DISABLED_PAGE, MESSAGE_PAGE_CSP, NOT_FOUND_PAGE, TOO_MANY_TRIES_PAGE, UNAVAILABLE_PAGE, UNKNOWN_HOST_PAGE, messagePage, passwordPage } from "./pages.ts";
import { hasValidPass, passCookie, readFormBody } from "./password.ts";
import { createQrResponder } from "./qr.ts";
import { createRequestFacts } from "./request-facts.ts";
import { sendAppLinkFile, sendExpired, sendMethodNotAllowed, sendNotFound, sendPage, sendRedirect } from "./respond.ts";
import { describeAgent } from "./traits.ts";
import { parseVisitPath, type AppLinkFile } from "./visit-path.ts";
import { createVisitorHasher } from "./visitors.ts";

export type RedirectApp = {
  /** A node:http request handler for every visitor path. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Subscribes to change notifications; call before serving. */
  start(): Promise<void>;
  /** Writes every buffered click and stops listening. */
  close(): Promise<void>;
  /** Writes buffered clicks and orphan visits now (tests, shutdown, a backup). */
  flushClicks(): Promise<void>;
  /** Clicks waiting in memory to be written, and clicks dropped because too many were waiting (CONTRACT §16). */
  clickStats(): { pending: number; dropped: number };
};

/** Seconds a visitor is asked to wait (`Retry-After`) while the database is unreachable. */
const RETRY_AFTER_SECONDS = "5";

/** The visitor side (CONTRACT §7): host + alias → a redirect or a small page, and a click. */
export function createRedirect(deps: RedirectDeps): RedirectApp {
  const { config } = deps;
  const clicksDb = (deps.clicksDatabase ?? deps.database).db;
  const resolver = createResolver(deps.database, deps.now, config.cache, deps.reads);
  const clicks = createClickBuffer(clicksDb, config.clickBuffer, deps.log, deps.clickEvents);
  let geo = deps.geoIp;
  const facts = createRequestFacts(config, () => geo);
  const visitors = createVisitorHasher(clicksDb, deps.now, facts.clientIp, deps.log);
  const orphans = createOrphanBuffer(clicksDb, config.orphanBuffer ?? DEFAULT_ORPHAN_BUFFER, deps.log);
  const deliver = createDelivery({ config, facts, limited: createLimitedCounter(clicksDb, deps.now), clicks, visitors, orphans });
  const ownsFailedTries = !deps.failedTries;
  const failedTries =
    deps.failedTries ??
    createFailedTries({
      store: createPostgresStore(deps.database),
      now: () => deps.now().getTime(),
      keySecret: config.secret,
      ...(deps.log ? { log: deps.log } : {}),
    });
  const { clientIp, isSecure } = facts;

  /** An orphan visit (CONTRACT §21): a person's under its kind, a bot's under `bots`. */
  function orphan(req: IncomingMessage, domainId: number, kind: "index" | "not_found" | "disabled" | "expired", alias?: string): void {
    orphans.record(domainId, kind, deps.now(), botOf(req, describeAgent(req.headers["user-agent"])), alias);
  }
  const sendQr = createQrResponder(config, deps.now);

  /**
   * CONTRACT §25: the domain's app-link file at its `/.well-known/` path, from memory like the domain
   * (one read by primary key on a miss, dropped when the domain changes), or a 404 when it has none.
   * Not a visit: never counted, not an orphan visit.
   */
  function sendAppLinks(req: IncomingMessage, res: ServerResponse, domainId: number, file: AppLinkFile): Promise<void> | void {
    if (req.method === "POST") {
      req.resume();
      return sendMethodNotAllowed(res);
    }
    const files = resolver.appLinks(domainId);
    return files instanceof Promise ? files.then((found) => sendAppLinkFile(req, res, found[file])) : sendAppLinkFile(req, res, files[file]);
  }

  /**
   * Step 6, POST: the password form's answer. The try is counted before the password is checked
   * (CONTRACT §15), so concurrent wrong tries never get past the limit; a right one is taken back.
   */
  async function submitPassword(req: IncomingMessage, res: ServerResponse, domain: ServedDomain, link: VisitLink, query: string): Promise<void> {
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
    if (gate === "disabled") {
      orphan(req, link.domainId, "disabled");
      return sendPage(res, 404, DISABLED_PAGE, false);
    }
    if (gate === "expired") {
      orphan(req, link.domainId, "expired");
      return sendExpired(res, link, false);
    }
    return deliver(req, res, domain.name, link, query, now, { "set-cookie": cookie });
  }

  /**
   * Steps 1–6. A visit whose domain and link are in memory is answered synchronously (no promise on the
   * hot path); a lookup, a click-limited admission or a password form returns a promise instead.
   */
  function visit(req: IncomingMessage, res: ServerResponse): Promise<void> | void {
    const method = req.method ?? "GET";
    if (method !== "GET" && method !== "HEAD" && method !== "POST") return sendMethodNotAllowed(res);
    const domain = resolver.domain(req.headers.host ?? "");
    return domain instanceof Promise ? domain.then((found) => visitOn(req, res, found)) : visitOn(req, res, domain);
  }

  function visitOn(req: IncomingMessage, res: ServerResponse, domain: ServedDomain | null): Promise<void> | void {
    const isHead = req.method === "HEAD";
    if (!domain) return sendPage(res, 404, UNKNOWN_HOST_PAGE, isHead);

    const path = parseVisitPath(req.url ?? "/");
    if (path.kind === "index") {
      orphan(req, domain.id, "index");
      if (domain.indexPage) return sendRedirect(res, 302, domain.indexPage);
      return sendPage(res, 404, NOT_FOUND_PAGE, isHead);
    }
    if (path.kind === "app-links") return sendAppLinks(req, res, domain.id, path.file);
    if (path.kind === "none") {
      // Not an alias's shape (a dot, a slash…): not found, but not named as an alias tried.
      orphan(req, domain.id, "not_found");
      return sendNotFound(res, domain, isHead);
    }
    const { query } = path;
    if (path.kind === "qr") {
      const found = resolver.link(domain.id, path.alias);
      return found instanceof Promise ? found.then((link) => sendQr(req, res, domain, link, query)) : sendQr(req, res, domain, found, query);
    }
    const { alias } = path;
    const link = resolver.link(domain.id, alias);
    return link instanceof Promise ? link.then((found) => visitLink(req, res, domain, found, alias, query)) : visitLink(req, res, domain, link, alias, query);
  }

  function visitLink(req: IncomingMessage, res: ServerResponse, domain: ServedDomain, link: VisitLink | null, alias: string, query: string): Promise<void> | void {
    const isHead = req.method === "HEAD";
    if (!link) {
      orphan(req, domain.id, "not_found", alias);
      return sendNotFound(res, domain, isHead);
    }

    if (req.method === "POST") {
      if (!link.passwordHash) {
        req.resume();
        return sendMethodNotAllowed(res);
      }
      return submitPassword(req, res, domain, link, query);
    }
    const now = deps.now();
    const hasPass = link.passwordHash ? hasValidPass(req, { secret: config.secret, linkId: link.id, passwordHash: link.passwordHash, now }) : true;
    switch (gateVisit(link, now, { hasPasswordPass: hasPass })) {
      case "disabled":
        orphan(req, link.domainId, "disabled");
        return sendPage(res, 404, DISABLED_PAGE, isHead);
      case "expired":
        orphan(req, link.domainId, "expired");
        return sendExpired(res, link, isHead);
      case "password":
        return sendPage(res, 200, passwordPage(false), isHead);
      case "open":
        return deliver(req, res, domain.name, link, query, now);
    }
  }

  /**
   * A visit that failed. A lost database (CONTRACT §16) is a 503 page with Retry-After: a visit that
   * needed it (a link or domain not in memory, a click-limited link) cannot be answered now. Visits to
   * cached links never get here: they need no database, and their clicks wait in memory.
   */
  function failed(req: IncomingMessage, res: ServerResponse, error: unknown): void {
    const isOutage = isConnectionError(error);
    // The path only, and no value a database error carries (CONTRACT §15).
    const path = (req.url ?? "").split("?")[0];
    if (isOutage) deps.log?.warn?.({ path, reason: (error as Error).message }, "visit needs the database, which is unreachable");
    else deps.log?.error({ err: loggableError(error), path }, "redirect failed");
    if (res.headersSent) res.destroy();
    else if (isOutage) sendPage(res, 503, UNAVAILABLE_PAGE, req.method === "HEAD", { "retry-after": RETRY_AFTER_SECONDS, "content-security-policy": MESSAGE_PAGE_CSP });
    else sendPage(res, 500, messagePage(500, "Something went wrong", "Please try again in a moment."), false, { "content-security-policy": MESSAGE_PAGE_CSP });
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    try {
      const pending = visit(req, res);
      if (pending) pending.catch((error: unknown) => failed(req, res, error));
    } catch (error) {
      failed(req, res, error);
    }
  }

  return {
    handle: deps.onVisitDone ? observed(handle, deps.onVisitDone) : handle,
    async start() {
      if (!geo) {
        geo = loadGeoIp();
      }
      // Country targeting must work from the first visit: wait for the data (about a second).
      await geo.ready.catch((error: unknown) => deps.log?.error({ err: error }, "GeoIP data could not be loaded: countries will be unknown"));
      await resolver.start();
      // Today's visitor salt, so the first visits hash at once (a failure is logged: they wait for it).
      await visitors.start();
    },
    flushClicks: async () => {
      await deliver.settled();
      await Promise.all([clicks.flush(), orphans.flush()]);
    },
    clickStats: () => ({ pending: clicks.pending, dropped: clicks.dropped }),
    async close() {
      await deliver.settled();
      await Promise.all([clicks.close(), orphans.close()]);
      await resolver.stop();
      if (ownsFailedTries) await failedTries.close();
    },
  };
}

/**
 * `handle`, reporting each answered visit to `onDone`. Only used when something listens (access log
 * `all`, metrics): a visit answered synchronously (a cached link) is reported at once, others when
 * their response finishes.
 */
function observed(handle: (req: IncomingMessage, res: ServerResponse) => void, onDone: (record: VisitRecord) => void) {
  // No closure for a visit answered at once: under tsx (the benchmarks) every named closure costs a defineProperty.
  function report(req: IncomingMessage, res: ServerResponse, started: number): void {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    onDone({ method: req.method ?? "GET", host: req.headers.host ?? "", path: q === -1 ? url : url.slice(0, q), status: res.statusCode, durationMs: performance.now() - started });
  }
  return (req: IncomingMessage, res: ServerResponse): void => {
    const started = performance.now();
    handle(req, res);
    if (res.writableEnded) report(req, res, started);
    else res.once("close", () => report(req, res, started));
  };
}
