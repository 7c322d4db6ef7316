import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The events a webhook can subscribe to (CONTRACT §18): @shortener/vocabulary's list, which the database,
 * core and the dashboard use too. The build copies that package into dist/vocabulary/, so the published
 * client needs no workspace package (scripts/build-types.mjs).
 */
export { WEBHOOK_EVENT_TYPES as WEBHOOK_EVENTS, type WebhookEventType } from "@shortener/vocabulary";

/** How far a signature's timestamp may be from this machine's clock by default: 5 minutes. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

const HEX_SHA256 = /^[0-9a-f]{64}$/;

/**
 * Checks a webhook delivery's `Shortener-Signature` header (`t=<unix seconds>,v1=<hex HMAC-SHA256 of
 * "t.body">`) against the webhook's secret: true only when one `v1` matches, compared in constant time,
 * and `t` is within `toleranceSeconds` of now (a replayed old delivery is refused).
 *
 * `body` must be the raw request body, byte for byte — not JSON parsed and serialised again.
 *
 * ```ts
 * if (!verifyWebhook(rawBody, req.headers["shortener-signature"], process.env.WEBHOOK_SECRET, 300)) return res.writeHead(400).end();
 * ```
 */
export function verifyWebhook(body: string | Uint8Array, header: string | string[] | null | undefined, secret: string, toleranceSeconds: number = DEFAULT_TOLERANCE_SECONDS): boolean {
  const value = Array.isArray(header) ? header[0] : header;
  if (typeof value !== "string" || !secret) return false;
  let timestamp: string | undefined;
  const candidates: Buffer[] = [];
  for (const part of value.split(",")) {
    const at = part.indexOf("=");
    if (at === -1) continue;
    const key = part.slice(0, at).trim();
    const item = part.slice(at + 1).trim();
    if (key === "t" && timestamp === undefined) timestamp = item;
    else if (key === "v1" && HEX_SHA256.test(item)) candidates.push(Buffer.from(item, "hex"));
  }
  if (!timestamp || !/^\d{1,12}$/.test(timestamp) || !candidates.length) return false;
  if (!Number.isFinite(toleranceSeconds) || Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceSeconds) return false;
  const expected = createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest();
  let isMatch = false;
  // Every candidate is compared, so the time taken does not tell which one (if any) matched.
  for (const candidate of candidates) if (timingSafeEqual(expected, candidate)) isMatch = true;
  return isMatch;
}
