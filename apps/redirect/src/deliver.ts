import type { IncomingMessage, ServerResponse } from "node:http";
import { chooseDestination, isClickLimited, isWeightedRotation, mergeQuery, noteAdmission, shortUrlOf, visitorFactsFor, type Click, type VisitLink } from "@shortener/core";
import { botOf } from "./bots.ts";
import type { ClickBuffer } from "./clicks.ts";
import type { RedirectConfig } from "./deps.ts";
import type { LimitedCounter } from "./limited.ts";
import type { OrphanBuffer } from "./orphans.ts";
import { MESSAGE_PAGE_CSP } from "./pages.ts";
import { pixelPage } from "./pixels.ts";
import { previewPage } from "./preview.ts";
import type { RequestFacts } from "./request-facts.ts";
import { sendExpired, sendPage, sendRedirect } from "./respond.ts";
import { describeAgent, languagesOf, referrerHost, type AgentInfo } from "./traits.ts";
import type { VisitorHasher } from "./visitors.ts";

/**
 * Steps 7–11 of CONTRACT §7 for a visit that passed its gate: the destination, the response, the click.
 * `domainName`: the link's domain's, for the short URL a preview page names (CONTRACT §25).
 */
export type Deliver = ((req: IncomingMessage, res: ServerResponse, domainName: string, link: VisitLink, query: string, now: Date, extraHeaders?: Record<string, string>) => Promise<void> | void) & {
  /** Resolves once every click waiting for its day's visitor salt is in the click buffer (flush, close). */
  settled(): Promise<void>;
};

export function createDelivery(parts: {
  config: Pick<RedirectConfig, "redirectStatus" | "shortUrlScheme">;
  facts: RequestFacts;
  limited: LimitedCounter;
  clicks: ClickBuffer;
  visitors: VisitorHasher;
  orphans: OrphanBuffer;
}): Deliver {
  const { config, facts, limited, clicks, visitors, orphans } = parts;
  /** Rotation turns served by this process, per link (from the link's `last_rotation` on first use). */
  const rotations = new Map<number, number>();
  /** Clicks whose visitor waits for the day's salt (the first visits of a day the process had none for). */
  const waiting = new Set<Promise<void>>();

  function nextRotation(link: VisitLink): number {
    const next = (rotations.get(link.id) ?? link.lastRotation ?? -1) + 1;
    rotations.set(link.id, next);
    return next;
  }

  /**
   * Synchronous unless the link is click-limited: then a person's visit waits for its admission (core's
   * expiration rule, counted in the database), and the returned promise says when it is done. Every
   * visit is classified (CONTRACT §21): a person's is a click; a bot's (HEAD, a prefetch, no User-Agent,
   * a crawler: `botOf`) is still sent on, but counted only as a bot visit, never admitted against
   * `expiration_clicks`.
   */
  function deliver(req: IncomingMessage, res: ServerResponse, domainName: string, link: VisitLink, query: string, now: Date, extraHeaders?: Record<string, string>): Promise<void> | void {
    const agent = describeAgent(req.headers["user-agent"]);
    const bot = botOf(req, agent);
    if (bot === null && isClickLimited(link)) {
      return limited.count(link.id).then((count) => {
        // The cached link learns its new count, or that it is used up: the next visits are then
        // answered "expired" from memory.
        noteAdmission(link, count);
        if (count === null) {
          // Visitor N+1 of a click-limited link: an orphan visit of its domain (expired).
          orphans.record(link.domainId, "expired", now, null);
          return sendExpired(res, link, false);
        }
        return send(req, res, domainName, link, query, now, agent, bot, extraHeaders);
      });
    }
    return send(req, res, domainName, link, query, now, agent, bot, extraHeaders);
  }

  /**
   * A weighted rotation (CONTRACT §25) picks its entry by the visitor's hash, so the visitor is hashed
   * first; only the first visits of a day a process holds no salt for wait for it. Other links hash
   * the visitor after answering, as before.
   */
  function send(
    req: IncomingMessage,
    res: ServerResponse,
    domainName: string,
    link: VisitLink,
    query: string,
    now: Date,
    agent: AgentInfo,
    bot: string | null,
    extraHeaders?: Record<string, string>,
  ): Promise<void> | void {
    if (!isWeightedRotation(link)) return answer(req, res, domainName, link, query, now, agent, bot, undefined, extraHeaders);
    const visitor = visitors.visitorOf(req, agent, link.id, now);
    if (typeof visitor === "string") return answer(req, res, domainName, link, query, now, agent, bot, visitor, extraHeaders);
    return visitor.then((v) => answer(req, res, domainName, link, query, now, agent, bot, v, extraHeaders));
  }

  function answer(
    req: IncomingMessage,
    res: ServerResponse,
    domainName: string,
    link: VisitLink,
    query: string,
    now: Date,
    agent: AgentInfo,
    bot: string | null,
    hashed: string | null | undefined,
    extraHeaders?: Record<string, string>,
  ): void {
    const isHead = req.method === "HEAD";
    const isCounted = bot === null;
    // A counted click records the country and language whatever the link targets.
    const needs = visitorFactsFor(link.targetType);
    const country = needs.country || isCounted ? facts.countryOf(req) : null;
    const languages = needs.languages || isCounted ? languagesOf(req) : [];
    const isWeighted = hashed !== undefined;
    const choice = chooseDestination(link, { country, platform: agent.platform, languages }, needs.rotation && !isWeighted ? nextRotation(link) : 0, hashed);
    const location = mergeQuery(choice.url, query);

    // HEAD and bots are sent straight on (CONTRACT §7 step 11, §15), like visitors who ask not to be tracked;
    // a link-preview bot (or its HEAD) on a link with an Open Graph preview gets the preview page instead
    // (CONTRACT §25). A person's visit reads nothing of this: `isCounted` decides first.
    // The privacy headers are read only for a link with pixels: most links have none.
    if (!isCounted && link.og !== null && agent.isPreviewFetcher) {
      const html = previewPage(link.og, shortUrlOf(domainName, link.alias, config.shortUrlScheme), location);
      sendPage(res, 200, html, isHead, { "content-security-policy": MESSAGE_PAGE_CSP, ...extraHeaders });
    } else if (link.pixels.length && isCounted && req.headers["sec-gpc"] !== "1" && req.headers.dnt !== "1") {
      const page = pixelPage(link.pixels, location);
      sendPage(res, 200, page.html, isHead, { "content-security-policy": page.csp, ...extraHeaders });
    } else {
      sendRedirect(res, config.redirectStatus, location, extraHeaders);
    }

    if (!isCounted) {
      clicks.add(botClick(link.id, now, bot));
      return;
    }
    // Every click the buffer holds has one shape (all fields, in this order): its code stays monomorphic.
    const click: Click = {
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
      // The entry served, for the `variant` statistics (CONTRACT §25): its URL.
      variant: choice.rotation === null ? null : choice.url,
      count: 1,
      bot: null,
      visitors: undefined,
    };
    // The visitor is hashed now, under the day's salt: only the hash goes on with the click.
    const visitor = hashed !== undefined ? hashed : visitors.visitorOf(req, agent, link.id, now);
    if (visitor === null) {
      clicks.add(click);
      return;
    }
    if (typeof visitor === "string") {
      click.visitors = [visitor];
      clicks.add(click);
    } else {
      const added = visitor.then((v) => {
        if (v !== null) click.visitors = [v];
        clicks.add(click);
      });
      waiting.add(added);
      void added.finally(() => waiting.delete(added));
    }
  }

  return Object.assign(deliver, {
    async settled(): Promise<void> {
      while (waiting.size) await Promise.all([...waiting]);
    },
  });
}

/** A bot's visit (CONTRACT §21): no traits, counted under its name only; the same shape as a person's click. */
function botClick(linkId: number, at: Date, bot: string | null): Click {
  return { linkId, at, country: null, platform: null, browser: null, device: null, language: null, referrer: null, counted: false, rotation: null, variant: null, count: 1, bot, visitors: undefined };
}
