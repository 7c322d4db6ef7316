import http from "node:http";
import https from "node:https";
import type { LinkHealth } from "@shortener/core";
import { pinnedLookup, resolveTarget, type Lookup, type Target } from "../webhooks/target.ts";
import type { HostLimiter } from "./host-limiter.ts";

/** What one look at a destination found: `health` null when nothing was learnt (this machine's resolver failed), and the requests it took. */
export type CheckOutcome = { health: LinkHealth | null; reason: string | null; requests: number };

export type CheckOptions = {
  /** HEALTH_ALLOW_PRIVATE: private, loopback and link-local destinations are checked too (tests). */
  allowPrivate: boolean;
  lookup: Lookup;
  /** Each request, from connecting to the response's status line, must fit in this; and each DNS lookup. */
  timeoutMs: number;
  /** Redirects followed before the destination counts as broken (`too many redirects`). */
  maxRedirects: number;
  limiter: HostLimiter;
  userAgent: string;
  /** Requests in flight, so a closing checker can end them. */
  inFlight?: Set<http.ClientRequest>;
};

/**
 * Statuses that prove the server is there and answering, although not with the page: it asks for
 * credentials (401), refuses this robot (403, as bot walls do), or asks it to slow down (429). People
 * may well get through, so they count as `ok`; every other 4xx and 5xx is `broken`.
 */
const ANSWERING = new Set([401, 403, 429]);

/** Resolver answers that say the name does not exist: the destination is broken (`DNS`). Any other failure may be this machine's resolver. */
const NO_SUCH_NAME = new Set(["ENOTFOUND", "ENODATA", "NXDOMAIN", "ENONAME"]);

/** TLS failures: a bad, expired or self-signed certificate, a wrong name, a failed handshake. */
const TLS_CODE = /^(CERT_|ERR_TLS_|ERR_SSL_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|UNABLE_TO_|EPROTO$|HOSTNAME_MISMATCH$)/;

/** The code of the error a closing checker ends its requests with (`endRequest`). */
const CLOSED_CODE = "ERR_HEALTH_CHECKER_CLOSED";

/** Ends a request in flight because the checker is closing: its check learns nothing. */
export function endRequest(req: http.ClientRequest): void {
  req.destroy(Object.assign(new Error("the health checker is closing"), { code: CLOSED_CODE }));
}

type Answer = { status: number; location: string | undefined } | { error: string };

/**
 * Looks at one destination the way a visitor's browser would reach it (CONTRACT §25,
 * docs/link-features.md): `HEAD` first, and `GET` when the `HEAD` is answered with an error status
 * (many servers refuse or mishandle `HEAD`: 405, 501, and also 403 or 404 where `GET` works), reading
 * only the status line and headers, never the body; redirects followed, up to `maxRedirects`, each hop
 * through the SSRF guard of CONTRACT §18 and the per-host limiter. Never throws.
 *
 * - `ok`: a 2xx (after redirects), a 401, 403 or 429, or a redirect to another scheme (an app link).
 * - `broken` with the reason: `HTTP 404` (any other 4xx or 5xx), `timeout`, `DNS` (the name does not
 *   exist), `TLS`, `connection refused`, `connection reset`, `too many redirects`, `bad redirect`.
 * - `unchecked` with `private address`: the guard refused the address (HEALTH_ALLOW_PRIVATE is off). The
 *   destination may work for people on that network: it is not broken, only not ours to look at.
 * - `null`: the lookup failed without saying the name does not exist (a timeout, SERVFAIL): the fault
 *   may be this machine's resolver, so the link keeps the health it had.
 */
export async function checkDestination(url: string, options: CheckOptions): Promise<CheckOutcome> {
  let current = url;
  let requests = 0;
  for (let hop = 0; hop <= options.maxRedirects; hop++) {
    const target = await resolveTarget(current, { allowPrivate: options.allowPrivate, lookup: options.lookup, timeoutMs: options.timeoutMs, allowSetting: "HEALTH_ALLOW_PRIVATE" });
    if (!target.ok) {
      if (target.kind === "refused") return { health: "unchecked", reason: "private address", requests };
      if (target.kind === "dns") return NO_SUCH_NAME.has(target.code ?? "") ? { health: "broken", reason: "DNS", requests } : { health: null, reason: null, requests };
      return { health: "broken", reason: "bad redirect", requests };
    }
    let answer = await request(target, "HEAD", options);
    requests++;
    if ("status" in answer && answer.status >= 400) {
      const again = await request(target, "GET", options);
      requests++;
      answer = again;
    }
    if ("error" in answer) return answer.error === "closed" ? { health: null, reason: null, requests } : { health: "broken", reason: answer.error, requests };
    const { status, location } = answer;
    if (status >= 200 && status < 300) return { health: "ok", reason: null, requests };
    if (ANSWERING.has(status)) return { health: "ok", reason: null, requests };
    if (status >= 300 && status < 400 && location !== undefined) {
      let next: URL;
      try {
        next = new URL(location, current);
      } catch {
        return { health: "broken", reason: "bad redirect", requests };
      }
      // An app's own scheme (`myapp://`, `mailto:`): the browser hands it on; nothing more to look at.
      if (next.protocol !== "http:" && next.protocol !== "https:") return { health: "ok", reason: null, requests };
      current = next.toString();
      continue;
    }
    return { health: "broken", reason: `HTTP ${status}`, requests };
  }
  return { health: "broken", reason: "too many redirects", requests };
}

/** The reason a failed request gives, from node's error code. */
function reasonOf(error: NodeJS.ErrnoException): string {
  const code = error.code ?? "";
  if (code === "ECONNREFUSED") return "connection refused";
  if (code === "ECONNRESET" || code === "EPIPE") return "connection reset";
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH") return "unreachable";
  if (TLS_CODE.test(code)) return "TLS";
  return code ? `connection failed (${code})` : "connection failed";
}

/**
 * One request to a checked target, waiting for the host's turn first: the status and `Location`, or why
 * there is none. The socket goes to the checked address (no second lookup); the body is never read.
 */
async function request(target: Extract<Target, { ok: true }>, method: "HEAD" | "GET", options: CheckOptions): Promise<Answer> {
  if (!(await options.limiter.acquire(target.url.hostname))) return { error: "closed" };
  const { url } = target;
  const isHttps = url.protocol === "https:";
  return new Promise((resolve) => {
    let isDone = false;
    const finish = (answer: Answer) => {
      if (isDone) return;
      isDone = true;
      clearTimeout(timer);
      options.inFlight?.delete(req);
      resolve(answer);
    };
    const req = (isHttps ? https : http).request(
      {
        protocol: url.protocol,
        hostname: url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname,
        port: url.port || (isHttps ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method,
        headers: { "user-agent": options.userAgent, accept: "*/*" },
        lookup: pinnedLookup(target),
        // A connection per request: checks of one host are spread out in time, nothing to keep alive.
        agent: false,
      },
      (response) => {
        const location = response.headers.location;
        finish({ status: response.statusCode ?? 0, location: typeof location === "string" ? location : undefined });
        // Only the status line and headers matter: the body is not downloaded.
        response.destroy();
        req.destroy();
      },
    );
    const timer = setTimeout(() => {
      finish({ error: "timeout" });
      req.destroy();
    }, options.timeoutMs);
    req.on("error", (error: NodeJS.ErrnoException) => finish({ error: error.code === CLOSED_CODE ? "closed" : reasonOf(error) }));
    // A socket closed without an answer and without an error event (node normally sends one).
    req.on("close", () => finish({ error: "connection reset" }));
    options.inFlight?.add(req);
    req.end();
  });
}
