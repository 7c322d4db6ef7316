import type { IncomingMessage } from "node:http";
import { getPattern } from "isbot";

/**
 * Humans and bots (CONTRACT §21, ADR 0040). A visit is a bot's when it is a `HEAD`, a prefetch, has no
 * User-Agent, or its User-Agent is a bot's: isbot's maintained pattern, plus the Microsoft Office link
 * previews isbot does not know. A bot has a NAME: short, readable, the same for every visit of that bot
 * (statistics show the top 100 names), never the whole User-Agent.
 */

export const HEAD_REQUEST = "HEAD request";
export const PREFETCH = "Prefetch";
export const NO_USER_AGENT = "No User-Agent";
export const OTHER_BOT = "Other bot";
export const OFFICE_PREVIEW = "Microsoft Office preview";
/** Names are cut to this many characters. */
export const MAX_BOT_NAME = 64;

/**
 * A visit's bot name when it is not a person's, else null (a person). `agent` is traits.ts's
 * `describeAgent` of its User-Agent (an `AgentInfo`; only its `botName` is read here).
 */
export function botOf(req: IncomingMessage, agent: { readonly botName: string | null }): string | null {
  if (req.method === "HEAD") return HEAD_REQUEST;
  const headers = req.headers;
  // Most visits carry none of these: four property reads that find nothing.
  if (isPrefetch(headers["sec-purpose"]) || isPrefetch(headers.purpose) || isPrefetch(headers["x-moz"]) || isPreview(headers["x-purpose"])) return PREFETCH;
  return agent.botName;
}

/** `Sec-Purpose: prefetch`, `prefetch;prerender`, `Purpose: prefetch`, `X-Moz: prefetch`. */
function isPrefetch(value: string | string[] | undefined): boolean {
  return typeof value === "string" && /prefetch/i.test(value);
}

/** `X-Purpose: preview` (Safari's Top Sites) or `X-Purpose: prefetch`. */
function isPreview(value: string | string[] | undefined): boolean {
  return typeof value === "string" && /preview|prefetch/i.test(value);
}

/**
 * Link previews isbot misses (measured in ADR 0040): Word, Outlook and the other Office apps fetch a
 * link before opening it in the browser ("Microsoft Office/16.0 (…Microsoft Outlook…)", "ms-office",
 * "MSOffice 16", "Microsoft Office Existence Discovery", "Microsoft Office Protocol Discovery"), and Skype's
 * preview. The browser's own visit that follows is the person's.
 */
const OFFICE = /\bMicrosoft Office\b|\bms-office\b|\bMSOffice\b|SkypeUriPreview/i;

/**
 * Names for bots whose generic name (the User-Agent's token that made it a bot) would be wrong or vary:
 * checked in order, only once the User-Agent is known to be a bot's.
 */
const NAMED: ReadonlyArray<readonly [RegExp, string]> = [
  [OFFICE, OFFICE_PREVIEW],
  [/Slack(?:bot|-ImgProxy)/i, "Slackbot"],
  [/facebookexternalhit|facebookcatalog/i, "facebookexternalhit"],
  [/\bMastodon\//i, "Mastodon"],
  [/Googlebot/i, "Googlebot"],
  [/\bbingbot/i, "bingbot"],
];

/** Words that name no bot: what browsers and operating systems put in a User-Agent, and isbot's generic words. */
const NOT_A_NAME = new Set(
  (
    "mozilla compatible applewebkit khtml like gecko chrome safari mobile version windows win nt wow x x11 linux " +
    "macintosh intel mac os u iphone ipad cpu android edge http https www bot bots crawl crawler spider scan " +
    "scanner search preview agent proxy server monitor url tools feed download library"
  ).split(" "),
);

/** A token's product name: before its `/version`, without a trailing version or punctuation. */
function productName(token: string): string {
  const trim = (text: string) => text.replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9!]+$/g, "");
  const slash = token.indexOf("/");
  return trim(trim(slash < 0 ? token : token.slice(0, slash)).replace(/[-_.]?v?\d+(?:\.\d+)*$/i, ""));
}

const isUrlLike = (token: string) => /:\/\/|^www\.|@|^\W*https?:/i.test(token);
const isName = (name: string) => /[A-Za-z]{2}/.test(name) && !NOT_A_NAME.has(name.toLowerCase());
/** What ends a User-Agent token. */
const SEPARATORS = /[\s;,()[\]"'<>{}|]+/;
/** The same, by character code (a token's ends are found character by character). */
const IS_SEPARATOR = new Uint8Array(128);
for (const char of " \t\n\v\f\r;,()[]\"'<>{}|") IS_SEPARATOR[char.charCodeAt(0)] = 1;
const isSeparatorAt = (text: string, i: number) => {
  const code = text.charCodeAt(i);
  return code < 128 ? IS_SEPARATOR[code] === 1 : SEPARATORS.test(text.charAt(i));
};

/**
 * The bot's name from its User-Agent: a known name; else the product of the token where isbot's pattern
 * matched ("Mozilla/5.0 (compatible; AhrefsBot/7.0; …)" → "AhrefsBot"); else, when that token is a URL
 * or a generic word ("bot", "crawler"), what follows "compatible;", the User-Agent's first product that is
 * no browser's, or the host of its first URL; else "Other bot". Printable ASCII, at most 64 characters.
 */
export function botNameOf(userAgent: string, matchIndex: number, matchLength: number): string {
  for (const [pattern, name] of NAMED) if (pattern.test(userAgent)) return name;
  // isbot's match may begin on the character before the word ("(?:^|[^g])news", " daum[ /]").
  let start = matchIndex;
  const matchEnd = Math.min(userAgent.length, matchIndex + matchLength);
  while (start < matchEnd - 1 && isSeparatorAt(userAgent, start)) start++;
  let end = start + 1;
  while (start > 0 && !isSeparatorAt(userAgent, start - 1)) start--;
  while (end < userAgent.length && !isSeparatorAt(userAgent, end)) end++;
  const token = userAgent.slice(start, end);
  let name = isUrlLike(token) ? "" : productName(token);
  if (!isName(name)) name = compatibleName(userAgent) ?? firstProduct(userAgent) ?? firstHost(userAgent) ?? "";
  return clean(name) || OTHER_BOT;
}

/** "(compatible; Yahoo! Slurp; http://…)" → "Yahoo! Slurp". */
function compatibleName(userAgent: string): string | null {
  const segment = /compatible;\s*([^;)]+)/i.exec(userAgent)?.[1];
  if (!segment || isUrlLike(segment)) return null;
  const name = productName(segment.trim());
  return isName(name) ? name : null;
}

function firstProduct(userAgent: string): string | null {
  for (const token of userAgent.split(SEPARATORS)) {
    if (!token || isUrlLike(token)) continue;
    const name = productName(token);
    if (isName(name)) return name;
  }
  return null;
}

/** "+http://www.tweetedtimes.com/about" → "tweetedtimes.com"; "crawler@example.org" → "example.org"; "www.example.net/x" → "example.net". */
function firstHost(userAgent: string): string | null {
  const host = /(?:https?:\/\/(?:www\.)?|@|\bwww\.)([a-z0-9][a-z0-9.-]*\.[a-z]{2,})/i.exec(userAgent)?.[1];
  return host ? host.toLowerCase() : null;
}

function clean(name: string): string {
  return name
    .replace(/[^\x20-\x7e]+/g, "")
    .trim()
    .slice(0, MAX_BOT_NAME)
    .trim();
}

/**
 * The link-preview fetchers (CONTRACT §21's list and the like), by the names `botNameOf` gives them: the
 * bots that build a card from a page's Open Graph tags, and so are shown a link's preview page instead
 * of its redirect when the link has one (CONTRACT §25, docs/link-features.md). Search engines, monitors
 * and HTTP libraries are not among them: they keep getting the redirect. iMessage fetches as
 * facebookexternalhit and Twitterbot, Signal as WhatsApp, Teams and Skype as Office previews.
 */
export const PREVIEW_FETCHERS: ReadonlySet<string> = new Set([
  "Slackbot",
  "Twitterbot",
  "facebookexternalhit",
  "WhatsApp",
  "Discordbot",
  "TelegramBot",
  "LinkedInBot",
  "Mastodon",
  OFFICE_PREVIEW,
  "Iframely",
  "Embedly",
  "redditbot",
  "Pinterestbot",
  "vkShare",
  "Google-PageRenderer",
]);

/** Whether a bot's name is a link-preview fetcher's (`PREVIEW_FETCHERS`). */
export function isPreviewFetcher(botName: string | null): boolean {
  return botName !== null && PREVIEW_FETCHERS.has(botName);
}

/** isbot's pattern (one regular expression, case-insensitive). */
const ISBOT = getPattern();

/**
 * A User-Agent's bot name, or null when it is a person's browser. Missing or blank is "No User-Agent".
 * Costs a few µs (isbot's expression); traits.ts keeps the answer per User-Agent.
 */
export function classifyAgent(userAgent: string | undefined): string | null {
  if (!userAgent || !/\S/.test(userAgent)) return NO_USER_AGENT;
  const match = ISBOT.exec(userAgent);
  if (match) return botNameOf(userAgent, match.index, match[0].length);
  return OFFICE.test(userAgent) ? OFFICE_PREVIEW : null;
}
