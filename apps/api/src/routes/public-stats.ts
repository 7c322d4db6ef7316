import { randomBytes } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { buildStatsReport, findStatsLink, hasScope, ValidationError, verifyPassword, type StatsLink, type StatsReport } from "@shortener/core";
import type { FailedTries } from "@shortener/web-guard";
import type { ApiDeps } from "../deps.ts";
import { HttpError, NOT_FOUND_MESSAGE } from "../errors.ts";
import { authenticateRequest } from "../http/auth.ts";
import type { KeyCache } from "../http/key-cache.ts";
import { resource } from "../http/routes.ts";
import type { Serializers } from "../serialize/resources.ts";
import { statsCsp } from "../stats-page/html.ts";
import { hasValidStatsPass, statsPassCookie } from "../stats-page/pass.ts";
import { renderMessagePage, renderPasswordPage, renderStatsPage, type PageLink } from "../stats-page/render-stats-page.ts";

/** Who may see a link's page (CONTRACT §8): the owner always; others by its privacy setting. */
type Access = "open" | "password" | "hidden";

/** A refused try (CONTRACT §15): an owner key or a password past the failed-try limit. */
class TooManyTries extends Error {
  constructor(readonly retryAfter: number) {
    super("Too Many Attempts.");
  }
}

const ID = /^[1-9]\d{0,9}$/;

/** JSON when the client asks for it and not for HTML (browsers list text/html first). */
function wantsJson(request: FastifyRequest): boolean {
  const accept = String(request.headers.accept ?? "");
  return /application\/json/i.test(accept) && !/text\/html/i.test(accept);
}

function queryOf(request: FastifyRequest): { from?: unknown; to?: unknown } {
  const query = (request.query ?? {}) as Record<string, unknown>;
  return { from: query.from, to: query.to };
}

/**
 * The public statistics page `{base}/stats/{link_id}`: HTML (server-drawn SVG charts, no script, a
 * strict CSP) or, with `Accept: application/json`, every series in one object. Privacy 0: anyone;
 * 1: only the owner's key, others get the same 404 as a missing link; 2: a password form, a signed
 * HttpOnly cookie once right. The owner's bearer key always opens it. Wrong passwords and unknown keys
 * are failed tries (CONTRACT §15), counted before they are checked: passwords per client and link,
 * keys per client (with the API's). Registered outside /api/v1, so the API key hook does not apply
 * (docs/statistics.md).
 */
export function publicStatsRoutes(app: FastifyInstance, deps: ApiDeps, json: Serializers, keys: KeyCache, failedTries: FailedTries): void {
  const sys = { db: deps.database.db, now: deps.now };

  async function isOwner(request: FastifyRequest, reply: FastifyReply, link: StatsLink): Promise<boolean> {
    if (!request.headers.authorization) return false;
    try {
      const auth = await authenticateRequest(request, reply, keys, failedTries);
      // The owner's key opens the page only with the stats:read scope (CONTRACT §17).
      return auth !== null && auth.workspaceId === link.workspaceId && hasScope(auth.scopes, "stats:read");
    } catch (error) {
      if (error instanceof HttpError && error.status === 429) throw new TooManyTries(Number(reply.getHeader("retry-after")) || 1);
      throw error;
    }
  }

  async function accessOf(request: FastifyRequest, reply: FastifyReply, link: StatsLink): Promise<Access> {
    if (await isOwner(request, reply, link)) return "open";
    if (link.privacy === 0) return "open";
    if (link.privacy === 2 && link.privacyPasswordHash) {
      const pass = { secret: deps.config.secret, linkId: link.id, privacyPasswordHash: link.privacyPasswordHash, now: deps.now() };
      return hasValidStatsPass(request.headers.cookie, pass) ? "open" : "password";
    }
    return "hidden";
  }

  /** The link behind the path and what this request may do with it; null when it must look missing. */
  async function resolve(request: FastifyRequest, reply: FastifyReply): Promise<{ link: StatsLink; access: Exclude<Access, "hidden"> } | null> {
    const raw = (request.params as Record<string, unknown>).id;
    const id = typeof raw === "string" && ID.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(id) || id > 2_147_483_647) return null;
    const link = await findStatsLink(sys, id);
    if (!link) return null;
    const access = await accessOf(request, reply, link);
    return access === "hidden" ? null : { link, access };
  }

  function html(reply: FastifyReply, status: number, render: (nonce: string) => string, headers: Record<string, string> = {}) {
    const nonce = randomBytes(16).toString("base64");
    return reply
      .code(status)
      .headers({
        "content-type": "text/html; charset=utf-8",
        "content-security-policy": statsCsp(nonce),
        "cache-control": "private, no-store",
        "x-content-type-options": "nosniff",
        "x-frame-options": "DENY",
        "referrer-policy": "no-referrer",
        vary: "Accept, Authorization, Cookie",
        ...headers,
      })
      .send(render(nonce));
  }

  function jsonError(reply: FastifyReply, status: number, code: string, message: string, headers: Record<string, string> = {}) {
    return reply
      .code(status)
      .headers({ "cache-control": "private, no-store", vary: "Accept, Authorization, Cookie", ...headers })
      .send({ message, code, status });
  }

  function notFound(request: FastifyRequest, reply: FastifyReply) {
    if (wantsJson(request)) return jsonError(reply, 404, "not_found", NOT_FOUND_MESSAGE);
    return html(reply, 404, (nonce) => renderMessagePage({ nonce, status: 404, title: "Not found", message: "There are no statistics at this address." }));
  }

  function tooManyTries(request: FastifyRequest, reply: FastifyReply, retryAfter: number) {
    const headers = { "retry-after": String(retryAfter) };
    if (wantsJson(request)) return jsonError(reply, 429, "rate_limited", "Too Many Attempts.", headers);
    return html(reply, 429, (nonce) => renderMessagePage({ nonce, status: 429, title: "Too many tries", message: "Too many wrong tries. Please wait a few minutes and try again." }), headers);
  }

  /** `resolve`, with a refused owner-key try answered as a 429. */
  async function resolveOr429(request: FastifyRequest, reply: FastifyReply) {
    try {
      return { found: await resolve(request, reply) };
    } catch (error) {
      if (error instanceof TooManyTries) return { limited: tooManyTries(request, reply, error.retryAfter) };
      throw error;
    }
  }

  function passwordRequired(request: FastifyRequest, reply: FastifyReply, isWrong: boolean) {
    if (wantsJson(request)) {
      return isWrong
        ? jsonError(reply, 401, "invalid_password", "The password is not right.")
        : jsonError(reply, 401, "password_required", "These statistics are protected: POST their password as the field password.");
    }
    return html(reply, isWrong ? 401 : 200, (nonce) => renderPasswordPage({ nonce, isWrong }));
  }

  function pageLink(link: StatsLink): PageLink {
    return { id: link.id, alias: link.alias, shortUrl: json.shortUrl(link.domainName, link.alias), title: link.title };
  }

  function reportJson(link: StatsLink, report: StatsReport) {
    const l = pageLink(link);
    return {
      data: {
        link: { id: l.id, alias: l.alias, short_url: l.shortUrl, title: l.title },
        from: report.range.from,
        to: report.range.to,
        total: report.total,
        unique_visitors: report.unique,
        bots: report.bots,
        series: report.series,
        hour_of_day: report.hourOfDay,
      },
      status: 200,
    };
  }

  /** The statistics themselves, once access is decided. */
  async function show(request: FastifyRequest, reply: FastifyReply, link: StatsLink, headers: Record<string, string> = {}) {
    let report: StatsReport;
    try {
      report = await buildStatsReport({ ctx: sys, linkId: link.id, input: queryOf(request) as never });
    } catch (error) {
      if (error instanceof ValidationError && !wantsJson(request)) {
        const message = Object.values(error.fields).flat().join(" ");
        return html(reply, 422, (nonce) => renderMessagePage({ nonce, status: 422, title: "That range cannot be shown", message }), headers);
      }
      throw error;
    }
    if (wantsJson(request)) {
      return reply
        .code(200)
        .headers({ "cache-control": "private, no-store", vary: "Accept, Authorization, Cookie", ...headers })
        .send(reportJson(link, report));
    }
    const today = deps.now().toISOString().slice(0, 10);
    return html(reply, 200, (nonce) => renderStatsPage({ link: pageLink(link), report, today, nonce }), headers);
  }

  // Public: the link's privacy decides (an owner's key needs stats:read, above), not the API's guard.
  resource(app, "/stats/:id", "public", {
    GET: async (request, reply) => {
      const { found, limited } = await resolveOr429(request, reply);
      if (limited) return limited;
      if (!found) return notFound(request, reply);
      if (found.access === "password") return passwordRequired(request, reply, false);
      return show(request, reply, found.link);
    },
    POST: async (request, reply) => {
      const { found, limited } = await resolveOr429(request, reply);
      if (limited) return limited;
      if (!found) return notFound(request, reply);
      const { link } = found;
      const pageUrl = `/stats/${link.id}${request.url.includes("?") ? request.url.slice(request.url.indexOf("?")) : ""}`;
      if (found.access === "open" || !link.privacyPasswordHash) return reply.code(303).header("location", pageUrl).send();

      // Counted before it is checked (CONTRACT §15); a right password takes its try back.
      const body = (request.body ?? {}) as Record<string, unknown>;
      const password = typeof body.password === "string" ? body.password : "";
      const verdict = await failedTries.begin(request.ip, `stats:${link.id}`);
      if (!verdict.isAllowed) return tooManyTries(request, reply, verdict.retryAfter);
      if (!password || password.length > 128 || !(await verifyPassword(password, link.privacyPasswordHash))) {
        return passwordRequired(request, reply, true);
      }
      await verdict.refund();
      const cookie = statsPassCookie({ secret: deps.config.secret, linkId: link.id, privacyPasswordHash: link.privacyPasswordHash, now: deps.now(), isSecure: request.protocol === "https" });
      if (wantsJson(request)) return show(request, reply, link, { "set-cookie": cookie });
      return reply.code(303).headers({ location: pageUrl, "set-cookie": cookie, "cache-control": "private, no-store" }).send();
    },
  });
}
