import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { readCookie, type FailedTries } from "@shortener/web-guard";
import { applyTryHeaders, tooManyAttempts } from "./rate-limit.ts";

/**
 * A browser where someone signed in to an account before: `shortener_device=<id>.<HMAC of the account
 * and id>` (HttpOnly, a year). Its guesses count in a budget of its own, so a guesser elsewhere cannot
 * make its owner wait (docs/adr/0032-sign-in-limits-per-account.md).
 */
export const DEVICE_COOKIE = "shortener_device";
const DEVICE_LIFETIME_SECONDS = 365 * 24 * 60 * 60;
const SIGNED = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

/** An account by its email as sign-in compares it (trimmed, lower case), hashed: no email in a counter's key. */
export function accountOf(email: string): string {
  return createHash("sha256").update(email.trim().toLowerCase()).digest("base64url").slice(0, 32);
}

const deviceMac = (secret: string, account: string, id: string) => createHmac("sha256", secret).update(`device\n${account}\n${id}`).digest("base64url");

/** The id of the request's device cookie if it was issued for `account`, else undefined. */
function deviceOf(request: FastifyRequest, secret: string, account: string): string | undefined {
  const match = SIGNED.exec(readCookie(request.headers.cookie, DEVICE_COOKIE) ?? "");
  if (!match?.[1] || !match[2]) return undefined;
  const expected = Buffer.from(deviceMac(secret, account, match[1]));
  const sent = Buffer.from(match[2]);
  return expected.length === sent.length && timingSafeEqual(expected, sent) ? match[1] : undefined;
}

/** A password guess that was let through: take it back when it was right. */
export type PasswordTry = {
  /** The guess was right: its tries are taken back (one each, never a reset). */
  succeeded(): Promise<void>;
  /** The device cookie to set after a right sign-in (a new one, or the one sent, renewed). */
  deviceCookie(isSecure: boolean): string;
};

/**
 * Counts a guess of an account's password — a dashboard sign-in or a `current_password` — before it is
 * checked (CONTRACT §15): once for the client group (`login`, 10 per 15 minutes) and once for the
 * account (free guesses, then growing waits, web-guard's `beginAccount`), the account's count kept
 * apart for a device that signed in to it before. Either refusal is a thrown 429 with `Retry-After`;
 * a guess the account refuses gives the client's try back (it was not checked).
 */
export async function beginPasswordTry(request: FastifyRequest, reply: FastifyReply, failedTries: FailedTries, secret: string, email: string): Promise<PasswordTry> {
  const byClient = await failedTries.begin(request.ip, "login");
  applyTryHeaders(reply, failedTries.limit.max, byClient);
  const account = accountOf(email);
  const device = deviceOf(request, secret, account);
  const byAccount = await failedTries.beginAccount(`${account}|${device ? `device:${device}` : "*"}`);
  if (!byAccount.isAllowed) {
    if (byClient.isAllowed) await byClient.refund();
    reply.header("retry-after", byAccount.retryAfter).header("x-ratelimit-reset", Math.ceil(byAccount.resetAt / 1000));
    throw tooManyAttempts();
  }
  return {
    async succeeded() {
      if (byClient.isAllowed) await byClient.refund();
      await byAccount.refund();
    },
    deviceCookie(isSecure) {
      const id = device ?? randomBytes(16).toString("base64url");
      return `${DEVICE_COOKIE}=${id}.${deviceMac(secret, account, id)}; Path=/; Max-Age=${DEVICE_LIFETIME_SECONDS}; HttpOnly; SameSite=Lax${isSecure ? "; Secure" : ""}`;
    },
  };
}
