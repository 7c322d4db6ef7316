import { domainToASCII } from "node:url";
import { z } from "zod";

export const MAX_URL_LENGTH = 2048;

/** Whitespace, C0/C1 controls, and the invisible characters used to disguise URLs. */
const FORBIDDEN_CHARS = /[\s\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]/u;

export type UrlCheck = { ok: true; url: string; host: string } | { ok: false; message: string };

/**
 * The URL rules of CONTRACT §4, except the loop check (which needs the database): absolute http(s)
 * only, parsed by the WHATWG parser, no whitespace or control characters, no credentials, an IDN host
 * stored as punycode, at most 2048 characters once normalised.
 */
export function checkUrl(raw: string, label: string): UrlCheck {
  const value = raw.trim();
  if (value === "") return { ok: false, message: `The ${label} field is required.` };
  if (FORBIDDEN_CHARS.test(value)) return { ok: false, message: `The ${label} must not contain spaces or control characters.` };
  if (value.length > MAX_URL_LENGTH * 4) return { ok: false, message: `The ${label} must not be greater than ${MAX_URL_LENGTH} characters.` };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, message: `The ${label} must be a valid URL.` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, message: `The ${label} must start with http:// or https://.` };
  if (!/^https?:\/\//i.test(value)) return { ok: false, message: `The ${label} must be a valid URL.` };
  if (!url.hostname) return { ok: false, message: `The ${label} must be a valid URL.` };
  if (url.username || url.password) return { ok: false, message: `The ${label} must not contain a user name or password.` };
  if (url.hostname.endsWith(".") ? url.hostname.length > 254 : url.hostname.length > 253) return { ok: false, message: `The ${label} must be a valid URL.` };
  const href = url.href;
  if (href.length > MAX_URL_LENGTH) return { ok: false, message: `The ${label} must not be greater than ${MAX_URL_LENGTH} characters.` };
  return { ok: true, url: href, host: url.host };
}

/** A zod field for a destination URL: normalised per `checkUrl`. The loop check happens in the verb. */
export function urlField(label: string) {
  return z.string({ error: (issue) => (issue.input === undefined || issue.input === null ? `The ${label} field is required.` : `The ${label} must be a string.`) }).transform((value, ctx) => {
    const result = checkUrl(value, label);
    if (!result.ok) {
      ctx.addIssue({ code: "custom", message: result.message });
      return z.NEVER;
    }
    return result.url;
  });
}

/**
 * The host (with port, if any) of an URL `checkUrl` normalised: `scheme://host[:port]/…`, no user
 * info. Cut from the string instead of parsing it again (the importer does this for every row).
 */
export function hostOf(url: string): string {
  const start = url.indexOf("//") + 2;
  if (start < 2) return new URL(url).host;
  let end = url.length;
  for (const c of ["/", "?", "#"]) {
    const at = url.indexOf(c, start);
    if (at !== -1 && at < end) end = at;
  }
  return url.slice(start, end);
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/**
 * A domain name as stored (CONTRACT §4): lower-cased, `http(s)://` and a trailing `/` stripped, a
 * hostname or IPv4 with an optional `:port`, IDN as punycode. Null when it is none of those.
 */
export function normalizeDomainName(raw: string): string | null {
  let value = raw
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, "")
    .replace(/\/$/, "");
  if (!value || FORBIDDEN_CHARS.test(value) || value.length > 260) return null;
  const match = /^([^:/?#@\[\]]+)(?::(\d{1,5}))?$/.exec(value);
  if (!match?.[1]) return null;
  const [, hostPart, port] = match;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535 || port !== String(Number(port)))) return null;
  const ascii = domainToASCII(hostPart);
  if (!ascii || ascii.length > 253) return null;
  const labels = ascii.split(".");
  const isIp = IPV4.test(ascii);
  // The WHATWG host parser reads `1.2.3` or `0x7f.1` as IPv4 addresses: only the dotted-quad form is a name here.
  if (isIp && ascii !== hostPart) return null;
  if (!isIp) {
    if (!labels.every((l) => LABEL.test(l))) return null;
    if (/^\d+$/.test(labels.at(-1) ?? "")) return null;
  }
  value = port ? `${ascii}:${port}` : ascii;
  return value;
}

/** True for `localhost` and IP addresses: their URLs default to http. */
export function isLocalOrIp(host: string): boolean {
  const name = host.replace(/:\d+$/, "");
  return name === "localhost" || name.endsWith(".localhost") || IPV4.test(name) || name.startsWith("[");
}
