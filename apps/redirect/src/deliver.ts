import type { IncomingMessage, ServerResponse } from "node:http";
import { chooseDestination, isClickLimited, mergeQuery, noteAdmission, visitorFactsFor, type VisitLink } from "@shortener/core";
import type { ClickBuffer } from "./clicks.ts";
import type { RedirectConfig } from "./deps.ts";
import type { LimitedCounter } from "./limited.ts";
import { pixelPage } from "./pixels.ts";
import type { RequestFacts } from "./request-facts.ts";
import { sendExpired, sendPage, sendRedirect } from "./respond.ts";
import { describeAgent, languagesOf, referrerHost, type AgentInfo } from "./traits.ts";

/** Steps 7–11 of CONTRACT §7 for a visit that passed its gate: the destination, the response, the click. */
export type Deliver = (req: IncomingMessage, res: ServerResponse, link: VisitLink, query: string, now: Date, extraHeaders?: Record<string, string>) => Promise<void> | void;

export function createDelivery(parts: { config: Pick<RedirectConfig, "redirectStatus">; facts: RequestFacts; limited: LimitedCounter; clicks: ClickBuffer }): Deliver {
  const { config, facts, limited, clicks } = parts;
  /** Rotation turns served by this process, per link (from the link's `last_rotation` on first use). */
  const rotations = new Map<number, number>();

  function nextRotation(link: VisitLink): number {
    const next = (rotations.get(link.id) ?? link.lastRotation ?? -1) + 1;
    rotations.set(link.id, next);
    return next;
  }

  /**
   * Synchronous unless the link is click-limited: then the visit waits for its admission (core's
   * expiration rule, counted in the database), and the returned promise says when it is done.
   */
  function deliver(req: IncomingMessage, res: ServerResponse, link: VisitLink, query: string, now: Date, extraHeaders?: Record<string, string>): Promise<void> | void {
    const isHead = req.method === "HEAD";
    const agent = describeAgent(req.headers["user-agent"]);
    const isCounted = !isHead && !agent.isBot;
    if (isCounted && isClickLimited(link)) {
      return limited.count(link.id).then((count) => {
        // The cached link learns its new count, or that it is used up: the next visits are then
        // answered "expired" from memory.
        noteAdmission(link, count);
        if (count === null) return sendExpired(res, link, isHead);
        send(req, res, link, query, now, agent, isCounted, extraHeaders);
      });
    }
    send(req, res, link, query, now, agent, isCounted, extraHeaders);
  }

  function send(req: IncomingMessage, res: ServerResponse, link: VisitLink, query: string, now: Date, agent: AgentInfo, isCounted: boolean, extraHeaders?: Record<string, string>): void {
    const isHead = req.method === "HEAD";
    // A counted click records the country and language whatever the link targets.
    const needs = visitorFactsFor(link.targetType);
    const country = needs.country || isCounted ? facts.countryOf(req) : null;
    const languages = needs.languages || isCounted ? languagesOf(req) : [];
    const choice = chooseDestination(link, { country, platform: agent.platform, languages }, needs.rotation ? nextRotation(link) : 0);
    const location = mergeQuery(choice.url, query);

    // HEAD and bots are sent straight on (CONTRACT §7 step 11, §15), like visitors who ask not to be tracked.
    const skipPixels = isHead || agent.isBot || req.headers["sec-gpc"] === "1" || req.headers.dnt === "1";
    if (link.pixels.length && !skipPixels) {
      const page = pixelPage(link.pixels, location);
      sendPage(res, 200, page.html, isHead, { "content-security-policy": page.csp, ...extraHeaders });
    } else {
      sendRedirect(res, config.redirectStatus, location, extraHeaders);
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

  return deliver;
}
