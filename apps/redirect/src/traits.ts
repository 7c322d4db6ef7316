import type { IncomingMessage } from "node:http";
import UAParser from "ua-parser-js";
import { agentDigest, parseAcceptLanguage, type AgentDigest } from "@shortener/core";
import { classifyAgent, isPreviewFetcher, NO_USER_AGENT } from "./bots.ts";
import { Memo } from "./memo.ts";

/**
 * What a User-Agent tells: parsed once per distinct string (parsing costs ~25 µs; the cache, well under 1).
 * `botName` is the bot's name (bots.ts), null for a person's browser; `isBot` is `botName !== null`;
 * `isPreviewFetcher`: a link-preview bot's (bots.ts's `PREVIEW_FETCHERS`), which an Open Graph preview is for.
 */
export type AgentInfo = {
  isBot: boolean;
  botName: string | null;
  isPreviewFetcher: boolean;
  platform: string | null;
  browser: string | null;
  device: string;
  /** The User-Agent as the visitor hash takes it (core's `agentDigest`), kept here so a visit does not hash the string again. */
  digest: AgentDigest;
};

/** ua-parser-js OS names → the platforms of CONTRACT §4. */
const PLATFORM_OF_OS: Record<string, string> = {
  iOS: "iOS",
  Android: "Android",
  Windows: "Windows",
  "Mac OS": "OS X",
  macOS: "OS X",
  Linux: "Linux",
  Ubuntu: "Ubuntu",
  "Chromium OS": "Chrome OS",
  "Chrome OS": "Chrome OS",
};

const agents = new Memo<AgentInfo>(10_000);

/** A request without a User-Agent (or a blank one) is treated as a bot: browsers always send one. */
const NO_AGENT: AgentInfo = Object.freeze({ isBot: true, botName: NO_USER_AGENT, isPreviewFetcher: false, platform: null, browser: null, device: "unknown", digest: agentDigest("") });

export function describeAgent(userAgent: string | undefined): AgentInfo {
  if (!userAgent) return NO_AGENT;
  // Only the first 512 characters count (browsers' User-Agents are under 300): they are the cache's key.
  const key = userAgent.length > 512 ? userAgent.slice(0, 512) : userAgent;
  let info = agents.get(key);
  if (!info) {
    const result = new UAParser(key).getResult();
    const botName = classifyAgent(key);
    info = {
      isBot: botName !== null,
      botName,
      isPreviewFetcher: isPreviewFetcher(botName),
      platform: (result.os.name && PLATFORM_OF_OS[result.os.name]) || null,
      browser: result.browser.name ?? null,
      device: result.device.type ?? "desktop",
      digest: agentDigest(key),
    };
    agents.set(key, info);
  }
  return info;
}

/**
 * Header values seen often are parsed once: a visitor's Accept-Language and Referer come from a small
 * set in practice (a browser's settings, the page that linked), and parsing costs ~1 µs and ~0.2 µs.
 * Long values are parsed every time rather than kept.
 */
const languageLists = new Memo<readonly string[]>(1_000);
const referrerHosts = new Memo<{ host: string | null }>(5_000);
const MAX_CACHED_HEADER = 512;
const NO_LANGUAGES: readonly string[] = Object.freeze([]);

/** The visitor's languages by preference (a shared list: do not change it). */
export function languagesOf(req: IncomingMessage): readonly string[] {
  const header = req.headers["accept-language"];
  if (!header) return NO_LANGUAGES;
  if (header.length > MAX_CACHED_HEADER) return parseAcceptLanguage(header);
  let list = languageLists.get(header);
  if (!list) languageLists.set(header, (list = Object.freeze(parseAcceptLanguage(header))));
  return list;
}

/** The host of the Referer header, or null. */
export function referrerHost(req: IncomingMessage): string | null {
  const referer = req.headers.referer;
  if (!referer || referer.length > 2048) return null;
  if (referer.length > MAX_CACHED_HEADER) return hostOf(referer);
  let entry = referrerHosts.get(referer);
  if (!entry) referrerHosts.set(referer, (entry = { host: hostOf(referer) }));
  return entry.host;
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname || null;
  } catch {
    return null;
  }
}
