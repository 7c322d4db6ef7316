import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** The cookie that lets a visitor who gave a link's password skip the form (CONTRACT §7.6). */
export function passCookieName(linkId: number): string {
  return `pass_${linkId}`;
}

/**
 * The cookie's value: an HMAC of the link id and its current password hash under the service secret.
 * A changed password changes the hash, so every earlier cookie stops matching.
 */
export function signPass(secret: string, linkId: number, passwordHash: string): string {
  return createHmac("sha256", secret).update(`${linkId}\n${passwordHash}`).digest("base64url");
}

export function hasValidPass(req: IncomingMessage, secret: string, linkId: number, passwordHash: string): boolean {
  const value = readCookie(req.headers.cookie, passCookieName(linkId));
  if (!value) return false;
  const expected = Buffer.from(signPass(secret, linkId, passwordHash));
  const given = Buffer.from(value);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function passCookie(linkId: number, alias: string, value: string, isSecure: boolean): string {
  return `${passCookieName(linkId)}=${value}; Path=/${alias}; Max-Age=86400; HttpOnly; SameSite=Lax${isSecure ? "; Secure" : ""}`;
}

/** Reads a small form body (the password form): at most `limit` bytes, else null. */
export function readFormBody(req: IncomingMessage, limit = 8 * 1024): Promise<URLSearchParams | null> {
  return new Promise((resolve) => {
    const type = req.headers["content-type"] ?? "";
    if (!type.startsWith("application/x-www-form-urlencoded")) {
      req.resume();
      resolve(null);
      return;
    }
    let size = 0;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.destroy();
        resolve(null);
      } else chunks.push(chunk);
    });
    req.on("end", () => resolve(new URLSearchParams(Buffer.concat(chunks).toString("utf8"))));
    req.on("error", () => resolve(null));
  });
}
