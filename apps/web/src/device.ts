/**
 * A session's device in a few words ("Firefox on Linux") from the User-Agent it signed in with. Only
 * to tell one's own devices apart: the full User-Agent is shown beside it.
 */
export function deviceOf(userAgent: string | null): string {
  if (!userAgent) return "Unknown device";
  const browser = /\bEdg(e|A|iOS)?\//.test(userAgent)
    ? "Edge"
    : /\bOPR\/|\bOpera\b/.test(userAgent)
      ? "Opera"
      : /\b(Firefox|FxiOS)\//.test(userAgent)
        ? "Firefox"
        : /\b(HeadlessChrome|Chrome|Chromium|CriOS)\//.test(userAgent)
          ? "Chrome"
          : /\bSafari\//.test(userAgent)
            ? "Safari"
            : null;
  const system = /\bAndroid\b/.test(userAgent)
    ? "Android"
    : /\b(iPhone|iPad|iPod)\b/.test(userAgent)
      ? "iOS"
      : /\bWindows\b/.test(userAgent)
        ? "Windows"
        : /\bMac OS X\b|\bMacintosh\b/.test(userAgent)
          ? "macOS"
          : /\bCrOS\b/.test(userAgent)
            ? "ChromeOS"
            : /\bLinux\b/.test(userAgent)
              ? "Linux"
              : null;
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? system ?? (userAgent.length > 40 ? `${userAgent.slice(0, 40)}…` : userAgent);
}
