import { createHmac } from "node:crypto";

/**
 * `Shortener-Signature` (CONTRACT §18, Stripe's scheme): `t=<unix seconds>,v1=<hex HMAC-SHA256 of
 * "t.body" with the webhook's secret>`. `verifyWebhook` in @shortener/client checks it.
 */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex");
  return `t=${unixSeconds},v1=${mac}`;
}
