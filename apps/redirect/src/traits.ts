import type { IncomingMessage } from "node:http";
import { isbot } from "isbot";
import { LRUCache } from "lru-cache";
import UAParser from "ua-parser-js";
import { parseAcceptLanguage } from "@shortener/core";

/** What a User-Agent tells: parsed once per distinct string (parsing costs ~25 µs; the cache, well under 1). */
export type AgentInfo = { isBot: boolean; platform: string | null; browser: string | null; device: string };

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

const agents = new LRUCache<string, AgentInfo>({ max: 20_000 });

/** A request without a User-Agent is treated as a bot: browsers always send one. */
const NO_AGENT: AgentInfo = { isBot: true, platform: null, browser: null, device: "unknown" };

export function describeAgent(userAgent: string | undefined): AgentInfo {
  if (!userAgent) return NO_AGENT;
  const key = userAgent.length > 512 ? userAgent.slice(0, 512) : userAgent;
  let info = agents.get(key);
  if (!info) {
    const result = new UAParser(key).getResult();
    info = {
      isBot: isbot(key),
      platform: (result.os.name && PLATFORM_OF_OS[result.os.name]) || null,
      browser: result.browser.name ?? null,
      device: result.device.type ?? "desktop",
    };
    agents.set(key, info);
  }
  return info;
}

export function languagesOf(req: IncomingMessage): string[] {
  return parseAcceptLanguage(req.headers["accept-language"]);
}

/** The host of the Referer header, or null. */
export function referrerHost(req: IncomingMessage): string | null {
  const referer = req.headers.referer;
  if (!referer || referer.length > 2048) return null;
  try {
    return new URL(referer).hostname || null;
  } catch {
    return null;
  }
}
