import { describe, expect, it } from "vitest";
import { PREVIEW_FETCHERS, classifyAgent, isPreviewFetcher } from "../src/bots.ts";
import { describeAgent } from "../src/traits.ts";
import { previewPage } from "../src/preview.ts";

/* CONTRACT §25: the Open Graph preview page and who is shown it (docs/link-features.md). */

describe("previewPage", () => {
  const HOSTILE = `"><script>alert(1)</script><meta http-equiv="refresh" content="0;url=https://evil.example/">'&`;

  it("escapes every value: no tag, attribute or entity of the caller's survives", () => {
    const html = previewPage({ title: HOSTILE, description: HOSTILE, image: `https://img.example/a.png?q=${HOSTILE}` }, "https://go.example/abc", `https://dest.example/?x=${HOSTILE}`);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toContain('evil.example/">');
    expect(html.match(/<meta http-equiv/g)).toBeNull();
    expect(html).toContain("&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
    // Every tag the page has is one of ours.
    const tags = [...html.matchAll(/<([a-z][a-z0-9]*)[\s>]/g)].map((m) => m[1]);
    expect(new Set(tags)).toEqual(new Set(["html", "head", "meta", "title", "style", "body", "main", "h1", "p", "a"]));
  });

  it("writes only the tags that are set, og:url as the short URL, and the card size by the image", () => {
    const titleOnly = previewPage({ title: "T", description: null, image: null }, "https://go.example/abc", "https://dest.example/");
    expect(titleOnly).toContain(`<meta property="og:title" content="T">`);
    expect(titleOnly).not.toContain("og:description");
    expect(titleOnly).not.toContain("og:image");
    expect(titleOnly).toContain(`<meta property="og:url" content="https://go.example/abc">`);
    expect(titleOnly).toContain(`<meta name="twitter:card" content="summary">`);
    const imageOnly = previewPage({ title: null, description: null, image: "https://img.example/a.png" }, "https://go.example/abc", "https://dest.example/");
    expect(imageOnly).toContain(`<meta name="twitter:card" content="summary_large_image">`);
    expect(imageOnly).toContain("<title>https://go.example/abc</title>");
    expect(imageOnly).not.toContain("og:title");
  });
});

describe("preview fetchers", () => {
  it.each([
    ["Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", true],
    ["Slack-ImgProxy (+https://api.slack.com/robots)", true],
    ["Twitterbot/1.0", true],
    ["facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", true],
    ["WhatsApp/2.23.20.0 A", true],
    ["Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)", true],
    ["TelegramBot (like TwitterBot)", true],
    ["LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)", true],
    ["http.rb/5.1.1 (Mastodon/4.2.1; +https://mastodon.social/)", true],
    ["Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17328; Pro)", true],
    ["Mozilla/5.0 (compatible; vkShare; +http://vk.com/dev/Share)", true],
    ["Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", false],
    ["Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36", false],
    ["Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)", false],
    ["curl/8.4.0", false],
    ["python-requests/2.31.0", false],
    ["Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", false],
  ])("%s → %s", (agent, expected) => {
    expect(isPreviewFetcher(classifyAgent(agent))).toBe(expected);
    expect(describeAgent(agent).isPreviewFetcher).toBe(expected);
  });

  it("no User-Agent is no preview fetcher", () => {
    expect(describeAgent(undefined).isPreviewFetcher).toBe(false);
    expect(describeAgent("").isPreviewFetcher).toBe(false);
  });

  it("every name of the list is one the classifier gives (a renamed bot would silently lose its preview)", () => {
    const agents = [
      "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
      "Twitterbot/1.0",
      "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
      "WhatsApp/2.23.20.0 A",
      "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
      "TelegramBot (like TwitterBot)",
      "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
      "http.rb/5.1.1 (Mastodon/4.2.1; +https://mastodon.social/)",
      "Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17328; Pro)",
      "Mozilla/5.0 (compatible; Iframely/1.3.1; +https://iframely.com/docs/about)",
      "Mozilla/5.0 (compatible; Embedly/0.2; +http://support.embed.ly/)",
      "Mozilla/5.0 (compatible; redditbot/1.0; +http://www.reddit.com/feedback)",
      "Pinterestbot/1.0 (+http://www.pinterest.com/bot.html)",
      "Mozilla/5.0 (compatible; vkShare; +http://vk.com/dev/Share)",
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko; Google-PageRenderer Google (+https://developers.google.com/+/web/snippet/)) Chrome/56.0.2924.87 Safari/537.36",
    ];
    expect(new Set(agents.map(classifyAgent))).toEqual(PREVIEW_FETCHERS);
  });
});
